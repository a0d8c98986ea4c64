//! A small typed eBPF assembler: registers, the instructions the fast path needs, and labels
//! for jumps resolved when the program is finished. Encodings follow the kernel's
//! `Documentation/bpf/standardization/instruction-set.rst`.

/// One eBPF register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reg {
    /// Return value, helper result.
    R0 = 0,
    /// First argument (the context on entry).
    R1,
    /// Second argument.
    R2,
    /// Third argument.
    R3,
    /// Fourth argument.
    R4,
    /// Fifth argument.
    R5,
    /// Callee-saved.
    R6,
    /// Callee-saved.
    R7,
    /// Callee-saved.
    R8,
    /// Callee-saved.
    R9,
    /// Frame pointer (read only).
    R10,
}

/// Access width of loads and stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// 8 bits.
    B = 0x10,
    /// 16 bits.
    H = 0x08,
    /// 32 bits.
    W = 0x00,
    /// 64 bits.
    DW = 0x18,
}

/// 64-bit ALU operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alu {
    /// `dst += src`
    Add = 0x00,
    /// `dst -= src`
    Sub = 0x10,
    /// `dst *= src`
    Mul = 0x20,
    /// `dst |= src`
    Or = 0x40,
    /// `dst &= src`
    And = 0x50,
    /// `dst <<= src`
    Lsh = 0x60,
    /// `dst >>= src` (logical)
    Rsh = 0x70,
    /// `dst ^= src`
    Xor = 0xa0,
    /// `dst = src`
    Mov = 0xb0,
}

/// Unsigned jump conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cond {
    /// `==`
    Eq = 0x10,
    /// `>`
    Gt = 0x20,
    /// `>=`
    Ge = 0x30,
    /// `!=`
    Ne = 0x50,
    /// `<`
    Lt = 0xa0,
    /// `<=`
    Le = 0xb0,
}

/// A kernel helper function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Helper {
    /// `void *bpf_map_lookup_elem(map, key)`
    MapLookupElem = 1,
    /// `u64 bpf_ktime_get_ns(void)`
    KtimeGetNs = 5,
    /// `long bpf_redirect(ifindex, flags)`
    Redirect = 23,
}

/// One encoded instruction (`struct bpf_insn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct Insn {
    /// Opcode.
    pub code: u8,
    /// `dst` in the low nibble, `src` in the high one.
    pub regs: u8,
    /// Offset.
    pub off: i16,
    /// Immediate.
    pub imm: i32,
}

const LD: u8 = 0x00;
const LDX: u8 = 0x01;
const ST: u8 = 0x02;
const STX: u8 = 0x03;
const JMP: u8 = 0x05;
const ALU64: u8 = 0x07;
const MEM: u8 = 0x60;
const IMM: u8 = 0x00;
const ATOMIC: u8 = 0xc0;
const SRC_K: u8 = 0x00;
const SRC_X: u8 = 0x08;
const CALL: u8 = 0x80;
/// `BPF_CMPXCHG` (`0xf0 | BPF_FETCH`).
const CMPXCHG: i32 = 0xf1;
const EXIT: u8 = 0x90;
/// `src` of a 64-bit immediate load whose value is a map file descriptor.
const PSEUDO_MAP_FD: u8 = 1;

/// A jump target, bound to an instruction index with [`Asm::bind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Label(usize);

/// Why [`Asm::finish`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsmError {
    /// A label used by a jump was never bound.
    Unbound(usize),
    /// A jump is farther than a 16-bit offset reaches.
    TooFar(usize),
}

/// The assembler: append instructions, bind labels, then [`Asm::finish`].
#[derive(Debug, Default)]
pub struct Asm {
    insns: Vec<Insn>,
    labels: Vec<Option<usize>>,
    fixups: Vec<(usize, Label)>,
}

fn regs(dst: Reg, src: Reg) -> u8 {
    (dst as u8) | ((src as u8) << 4)
}

impl Asm {
    /// An empty program.
    pub fn new() -> Self {
        Self::default()
    }

    fn push(&mut self, code: u8, dst: Reg, src: Reg, off: i16, imm: i32) -> &mut Self {
        self.insns.push(Insn {
            code,
            regs: regs(dst, src),
            off,
            imm,
        });
        self
    }

    /// A new, unbound label.
    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() - 1)
    }

    /// Binds `l` to the next instruction.
    pub fn bind(&mut self, l: Label) -> &mut Self {
        if let Some(slot) = self.labels.get_mut(l.0) {
            *slot = Some(self.insns.len());
        }
        self
    }

    /// `dst = dst <op> imm` (64-bit).
    pub fn alu_imm(&mut self, op: Alu, dst: Reg, imm: i32) -> &mut Self {
        self.push(ALU64 | op as u8 | SRC_K, dst, Reg::R0, 0, imm)
    }

    /// `dst = dst <op> src` (64-bit).
    pub fn alu_reg(&mut self, op: Alu, dst: Reg, src: Reg) -> &mut Self {
        self.push(ALU64 | op as u8 | SRC_X, dst, src, 0, 0)
    }

    /// `dst = imm` (64-bit, sign-extended immediate).
    pub fn mov_imm(&mut self, dst: Reg, imm: i32) -> &mut Self {
        self.alu_imm(Alu::Mov, dst, imm)
    }

    /// `dst = src`.
    pub fn mov(&mut self, dst: Reg, src: Reg) -> &mut Self {
        self.alu_reg(Alu::Mov, dst, src)
    }

    /// `dst = imm` for a full 64-bit immediate (two instruction slots).
    pub fn ld_imm64(&mut self, dst: Reg, imm: u64) -> &mut Self {
        self.push(
            LD | IMM | Size::DW as u8,
            dst,
            Reg::R0,
            0,
            imm as u32 as i32,
        );
        self.push(0, Reg::R0, Reg::R0, 0, (imm >> 32) as u32 as i32)
    }

    /// `dst = map` (the map's file descriptor, relocated by the kernel to its address).
    pub fn ld_map_fd(&mut self, dst: Reg, fd: i32) -> &mut Self {
        self.insns.push(Insn {
            code: LD | IMM | Size::DW as u8,
            regs: (dst as u8) | (PSEUDO_MAP_FD << 4),
            off: 0,
            imm: fd,
        });
        self.push(0, Reg::R0, Reg::R0, 0, 0)
    }

    /// `dst = *(size *)(src + off)`.
    pub fn ldx(&mut self, size: Size, dst: Reg, src: Reg, off: i16) -> &mut Self {
        self.push(LDX | MEM | size as u8, dst, src, off, 0)
    }

    /// `*(size *)(dst + off) = src`.
    pub fn stx(&mut self, size: Size, dst: Reg, off: i16, src: Reg) -> &mut Self {
        self.push(STX | MEM | size as u8, dst, src, off, 0)
    }

    /// `*(size *)(dst + off) = imm`.
    pub fn st_imm(&mut self, size: Size, dst: Reg, off: i16, imm: i32) -> &mut Self {
        self.push(ST | MEM | size as u8, dst, Reg::R0, off, imm)
    }

    /// `lock *(u64 *)(dst + off) += src`.
    pub fn atomic_add64(&mut self, dst: Reg, off: i16, src: Reg) -> &mut Self {
        self.push(STX | ATOMIC | Size::DW as u8, dst, src, off, 0)
    }

    /// `lock *(u32 *)(dst + off) += src`.
    pub fn atomic_add32(&mut self, dst: Reg, off: i16, src: Reg) -> &mut Self {
        self.push(STX | ATOMIC | Size::W as u8, dst, src, off, 0)
    }

    /// `R0 = cmpxchg((u32 *)(dst + off), R0, src)`: stores `src` if the word equals `R0`;
    /// `R0` gets the old word either way.
    pub fn cmpxchg32(&mut self, dst: Reg, off: i16, src: Reg) -> &mut Self {
        self.push(STX | ATOMIC | Size::W as u8, dst, src, off, CMPXCHG)
    }

    fn jump(&mut self, code: u8, dst: Reg, src: Reg, imm: i32, to: Label) -> &mut Self {
        self.fixups.push((self.insns.len(), to));
        self.push(code, dst, src, 0, imm)
    }

    /// `goto to`.
    pub fn ja(&mut self, to: Label) -> &mut Self {
        self.jump(JMP, Reg::R0, Reg::R0, 0, to)
    }

    /// `if dst <cond> imm goto to` (64-bit, unsigned).
    pub fn jmp_imm(&mut self, c: Cond, dst: Reg, imm: i32, to: Label) -> &mut Self {
        self.jump(JMP | c as u8 | SRC_K, dst, Reg::R0, imm, to)
    }

    /// `if dst <cond> src goto to` (64-bit, unsigned).
    pub fn jmp_reg(&mut self, c: Cond, dst: Reg, src: Reg, to: Label) -> &mut Self {
        self.jump(JMP | c as u8 | SRC_X, dst, src, 0, to)
    }

    /// Calls helper `h` (arguments in R1..R5, result in R0; R1..R5 are clobbered).
    pub fn call(&mut self, h: Helper) -> &mut Self {
        self.push(JMP | CALL, Reg::R0, Reg::R0, 0, h as i32)
    }

    /// `return R0`.
    pub fn exit(&mut self) -> &mut Self {
        self.push(JMP | EXIT, Reg::R0, Reg::R0, 0, 0)
    }

    /// Resolves every jump; the program.
    pub fn finish(mut self) -> Result<Vec<Insn>, AsmError> {
        for &(at, l) in &self.fixups {
            let target = self
                .labels
                .get(l.0)
                .copied()
                .flatten()
                .ok_or(AsmError::Unbound(l.0))?;
            let rel = target as i64 - at as i64 - 1;
            let off = i16::try_from(rel).map_err(|_| AsmError::TooFar(at))?;
            if let Some(i) = self.insns.get_mut(at) {
                i.off = off;
            }
        }
        Ok(self.insns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_match_the_kernel_documentation() {
        let mut a = Asm::new();
        let end = a.label();
        a.mov_imm(Reg::R0, 2) // b7 00 .. imm 2
            .jmp_imm(Cond::Eq, Reg::R1, 0x24, end) // 15 01
            .ldx(Size::B, Reg::R3, Reg::R2, 13) // 71 23
            .atomic_add64(Reg::R1, 8, Reg::R2) // db 21
            .cmpxchg32(Reg::R1, 0, Reg::R2) // c3 21 imm f1
            .bind(end)
            .exit(); // 95
        let p = a.finish().expect("resolved");
        assert_eq!((p[0].code, p[0].regs, p[0].imm), (0xb7, 0x00, 2));
        assert_eq!(
            (p[1].code, p[1].regs, p[1].off, p[1].imm),
            (0x15, 0x01, 3, 0x24)
        );
        assert_eq!((p[2].code, p[2].regs, p[2].off), (0x71, 0x23, 13));
        assert_eq!((p[3].code, p[3].regs, p[3].off), (0xdb, 0x21, 8));
        assert_eq!((p[4].code, p[4].regs, p[4].imm), (0xc3, 0x21, 0xf1));
        assert_eq!(p[5].code, 0x95);
    }

    #[test]
    fn backward_jumps_and_wide_immediates() {
        let mut a = Asm::new();
        let top = a.label();
        a.bind(top).ld_imm64(Reg::R1, 0x1122_3344_5566_7788).ja(top);
        let p = a.finish().expect("resolved");
        assert_eq!(
            (p[0].code, p[0].imm as u32, p[1].imm as u32),
            (0x18, 0x5566_7788, 0x1122_3344)
        );
        assert_eq!((p[2].code, p[2].off), (0x05, -3));
    }

    #[test]
    fn unbound_labels_are_refused() {
        let mut a = Asm::new();
        let nowhere = a.label();
        a.ja(nowhere);
        assert_eq!(a.finish(), Err(AsmError::Unbound(0)));
    }
}
