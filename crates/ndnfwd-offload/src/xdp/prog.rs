//! The XDP program: the switch tier's hashed PIT (seed 003, D1) on an interface.
//!
//! For every NDN frame (EtherType 0x8624) holding an unfragmented Interest or Data, bare or in
//! an NDNLPv2 `LpPacket`, it hashes the Name TLV's value with the keyed hash of [`name_hash`]
//! (a bounded loop, names up to [`MAX_NAME`] bytes) and uses the low bits as the slot:
//!
//! - Interest: slot empty (or past its deadline): record the ingress interface, the
//!   destination MAC the Data must go to, the Interest's 8-byte PIT token and a 32-bit name
//!   fingerprint; pending = 1. Slot in use: pending + 1 and the slot is marked collided.
//!   An Interest without an 8-byte token is counted but marks the slot collided (the switch
//!   could not give its Data the token back). Always `XDP_PASS`: ndnfwd does the FIB work.
//! - Data with an 8-byte PIT token: exactly one pending, not collided, not expired, the same
//!   fingerprint, another interface: the token is overwritten with the recorded one, the MACs
//!   are rewritten (source: the egress interface's, from the `ifmac` map), the slot is freed
//!   and the frame is `bpf_redirect`ed. Anything else: `XDP_PASS` to ndnfwd.
//!
//! A slot the computer resolved stays collided until its deadline (the program never sees
//! the Data ndnfwd sends); that only sends more Data through ndnfwd, never to a wrong face.
//!
//! Concurrency (one program runs on every CPU): a free slot is claimed with a compare-and-
//! exchange of its pending counter (0 -> 1) and its record is marked collided until complete;
//! a Data takes the record's fields and then claims the slot (1 -> 0) the same way, so two
//! Interests never both write a record and a Data is redirected at most once per record. A
//! record that is freed and re-claimed between a Data's read and its claim (an ABA within a
//! few instructions) could mix two records' fields; the downstream then drops a Data whose
//! token names another entry (it checks the name), so it costs a Data, not a wrong answer.

use std::os::fd::{AsRawFd, OwnedFd};

use super::insn::{Alu, Asm, AsmError, Cond, Helper, Insn, Label, Reg, Size};

/// Longest Name TLV value the program hashes (longer names are passed to ndnfwd).
pub const MAX_NAME: i32 = 255;
/// Largest offset into a frame the program parses.
const MAX_OFF: i32 = 2048;
/// LP header fields the program walks before giving up.
const MAX_LP_FIELDS: usize = 6;

/// Multiplier of the byte loop (the 64-bit FNV prime).
pub const HASH_PRIME: u64 = 0x0000_0100_0000_01b3;
/// Multiplier of the final mix (2^64 / golden ratio).
pub const HASH_MIX: u64 = 0x9e37_79b9_7f4a_7c15;

/// `cfg` map value: k0, k1, slot mask, slot lifetime in ns (4 x u64).
pub const CFG_SIZE: u32 = 32;
/// `pit` map value: pending u32, flags u32, deadline u64, ifindex u32, fingerprint u32,
/// token [u8; 8], Data destination MAC [u8; 6] + 2 bytes of padding.
pub const SLOT_SIZE: u32 = 40;
/// Entries of the `ifmac` map (indexed by ifindex): MAC [u8; 6] + 2 bytes of padding.
pub const IFMAC_ENTRIES: u32 = 4096;
/// Counters of the `stats` map, in order.
pub const STATS: [&str; 5] = [
    "interests_recorded",
    "interests_collided",
    "data_redirected",
    "data_passed",
    "unparsed",
];

const XDP_PASS: i32 = 2;
const FLAG_COLLIDED: i32 = 1;
const ST_RECORDED: i32 = 0;
const ST_COLLIDED: i32 = 1;
const ST_REDIRECTED: i32 = 2;
const ST_PASSED: i32 = 3;
const ST_UNPARSED: i32 = 4;

// Stack slots (offsets from R10).
const FP_KEY: i16 = -8;
const FP_TOKEN_OFF: i16 = -16;
const FP_KIND: i16 = -24;
const FP_HASH: i16 = -32;
const FP_ENTRY: i16 = -40;
const FP_NOW: i16 = -48;
const FP_CFG: i16 = -56;
const FP_IN: i16 = -64;
const FP_SCRATCH: i16 = -72;
const FP_TOK: i16 = -80;
const FP_MAC: i16 = -88;
const FP_OUT: i16 = -96;

/// `scratch` map value (per CPU): parse offset, name length, token offset, packet type.
pub const SCRATCH_SIZE: u32 = 32;

/// The keyed hash of a Name TLV value, as the program computes it: FNV-1a over the bytes from
/// `k0`, then `h ^= k1; h *= HASH_MIX; h ^= h >> 32`. The slot is `h & mask`, the fingerprint
/// `h >> 32`.
pub fn name_hash(k0: u64, k1: u64, name_value: &[u8]) -> u64 {
    let mut h = k0;
    for &b in name_value {
        h ^= u64::from(b);
        h = h.wrapping_mul(HASH_PRIME);
    }
    h ^= k1;
    h = h.wrapping_mul(HASH_MIX);
    h ^ (h >> 32)
}

/// The map file descriptors the program refers to.
pub struct Maps<'a> {
    /// `cfg` (1 entry of [`CFG_SIZE`]).
    pub cfg: &'a OwnedFd,
    /// `pit` (the slots, [`SLOT_SIZE`] each).
    pub pit: &'a OwnedFd,
    /// `ifmac` ([`IFMAC_ENTRIES`] of 8 bytes).
    pub ifmac: &'a OwnedFd,
    /// `stats` (one u64 per name in [`STATS`]).
    pub stats: &'a OwnedFd,
    /// `scratch` (per-CPU, 1 entry of [`SCRATCH_SIZE`]).
    pub scratch: &'a OwnedFd,
}

struct Gen<'a> {
    a: Asm,
    maps: &'a Maps<'a>,
    unparsed: Label,
}

impl Gen<'_> {
    /// `dst = frame[R9 + k]`, or jump to `unparsed` past the end. Clobbers `tmp`.
    fn byte_at(&mut self, dst: Reg, tmp: Reg, k: i16) {
        let a = &mut self.a;
        a.mov(tmp, Reg::R7).alu_reg(Alu::Add, tmp, Reg::R9);
        a.mov(dst, tmp).alu_imm(Alu::Add, dst, i32::from(k) + 1);
        a.jmp_reg(Cond::Gt, dst, Reg::R8, self.unparsed);
        a.ldx(Size::B, dst, tmp, k);
    }

    /// Reads a TLV VAR-NUMBER (1 or 3 bytes) at R9 into R4 and advances R9 past it. Uses R2, R3.
    fn varnum(&mut self) {
        let (one, done) = (self.a.label(), self.a.label());
        self.byte_at(Reg::R4, Reg::R2, 0);
        self.a.jmp_imm(Cond::Lt, Reg::R4, 253, one);
        self.a.jmp_imm(Cond::Ne, Reg::R4, 253, self.unparsed);
        self.byte_at(Reg::R4, Reg::R2, 1);
        self.byte_at(Reg::R3, Reg::R2, 2);
        let a = &mut self.a;
        a.alu_imm(Alu::Lsh, Reg::R4, 8)
            .alu_reg(Alu::Or, Reg::R4, Reg::R3);
        a.alu_imm(Alu::Add, Reg::R9, 3).ja(done);
        a.bind(one).alu_imm(Alu::Add, Reg::R9, 1);
        a.bind(done);
        self.bound_r9();
    }

    /// Keeps R9 provably small for the verifier.
    fn bound_r9(&mut self) {
        self.a.jmp_imm(Cond::Gt, Reg::R9, MAX_OFF, self.unparsed);
    }

    /// `R9 += R4` (a TLV value skipped), bounded.
    fn skip_r4(&mut self) {
        self.a.jmp_imm(Cond::Gt, Reg::R4, MAX_OFF, self.unparsed);
        self.a.alu_reg(Alu::Add, Reg::R9, Reg::R4);
        self.bound_r9();
    }

    /// `stats[idx] += 1` (atomic). Clobbers R0..R5.
    fn count(&mut self, idx: i32) {
        let skip = self.a.label();
        let a = &mut self.a;
        a.st_imm(Size::W, Reg::R10, FP_KEY, idx);
        a.ld_map_fd(Reg::R1, self.maps.stats.as_raw_fd());
        a.mov(Reg::R2, Reg::R10)
            .alu_imm(Alu::Add, Reg::R2, i32::from(FP_KEY));
        a.call(Helper::MapLookupElem);
        a.jmp_imm(Cond::Eq, Reg::R0, 0, skip);
        a.mov_imm(Reg::R1, 1).atomic_add64(Reg::R0, 0, Reg::R1);
        a.bind(skip);
    }

    /// Copies `n` bytes from `src + so` to `dst + doff` (both already range-checked).
    fn copy(&mut self, dst: Reg, doff: i16, src: Reg, so: i16, n: i16) {
        for i in 0..n {
            self.a.ldx(Size::B, Reg::R5, src, so + i);
            self.a.stx(Size::B, dst, doff + i, Reg::R5);
        }
    }
}

/// Builds the program against `maps`.
pub fn build(maps: &Maps<'_>) -> Result<Vec<Insn>, AsmError> {
    let mut a = Asm::new();
    let pass = a.label();
    let unparsed = a.label();
    let mut g = Gen { a, maps, unparsed };
    let (lp, net, collide, data, passed) = (
        g.a.label(),
        g.a.label(),
        g.a.label(),
        g.a.label(),
        g.a.label(),
    );

    // R6 = ctx, R7 = data, R8 = data_end, R9 = parse offset.
    g.a.mov(Reg::R6, Reg::R1);
    g.a.ldx(Size::W, Reg::R7, Reg::R6, 0);
    g.a.ldx(Size::W, Reg::R8, Reg::R6, 4);
    g.a.ldx(Size::W, Reg::R2, Reg::R6, 12);
    g.a.stx(Size::DW, Reg::R10, FP_IN, Reg::R2);
    g.a.mov_imm(Reg::R9, 0);
    g.a.st_imm(Size::DW, Reg::R10, FP_TOKEN_OFF, 0);
    // Ethernet: EtherType 0x8624 at 12..14, or not ours (quietly passed).
    g.a.mov(Reg::R2, Reg::R7).alu_imm(Alu::Add, Reg::R2, 14);
    g.a.jmp_reg(Cond::Gt, Reg::R2, Reg::R8, pass);
    g.a.ldx(Size::B, Reg::R3, Reg::R7, 12);
    g.a.jmp_imm(Cond::Ne, Reg::R3, 0x86, pass);
    g.a.ldx(Size::B, Reg::R3, Reg::R7, 13);
    g.a.jmp_imm(Cond::Ne, Reg::R3, 0x24, pass);
    g.a.mov_imm(Reg::R9, 14);
    g.byte_at(Reg::R4, Reg::R2, 0);
    g.a.jmp_imm(Cond::Eq, Reg::R4, 0x64, lp);
    g.a.ja(net);

    // LpPacket: walk the header fields up to the Fragment (unrolled, bounded).
    g.a.bind(lp).alu_imm(Alu::Add, Reg::R9, 1);
    g.varnum();
    for _ in 0..MAX_LP_FIELDS {
        let (not_frag, not_token, one_byte_type, next) =
            (g.a.label(), g.a.label(), g.a.label(), g.a.label());
        g.byte_at(Reg::R1, Reg::R2, 0);
        // Store the type across varnum (which clobbers R2..R4).
        g.a.stx(Size::DW, Reg::R10, FP_KIND, Reg::R1);
        g.a.jmp_imm(Cond::Ne, Reg::R1, 0x50, not_frag);
        g.a.alu_imm(Alu::Add, Reg::R9, 1);
        g.varnum();
        g.a.ja(net);
        g.a.bind(not_frag);
        // FragIndex / FragCount: a fragment; left to ndnfwd's reassembly.
        g.a.jmp_imm(Cond::Eq, Reg::R1, 0x52, unparsed);
        g.a.jmp_imm(Cond::Eq, Reg::R1, 0x53, unparsed);
        g.a.jmp_imm(Cond::Ne, Reg::R1, 0xfd, one_byte_type);
        g.a.alu_imm(Alu::Add, Reg::R9, 3).ja(next);
        g.a.bind(one_byte_type).alu_imm(Alu::Add, Reg::R9, 1);
        g.a.bind(next);
        g.bound_r9();
        g.varnum();
        g.a.ldx(Size::DW, Reg::R1, Reg::R10, FP_KIND);
        g.a.jmp_imm(Cond::Ne, Reg::R1, 0x62, not_token);
        g.a.jmp_imm(Cond::Ne, Reg::R4, 8, not_token);
        g.a.stx(Size::DW, Reg::R10, FP_TOKEN_OFF, Reg::R9);
        g.a.bind(not_token);
        g.skip_r4();
    }
    g.a.ja(unparsed);

    // The network packet: Interest (5) or Data (6), then its Name (7).
    g.a.bind(net);
    g.byte_at(Reg::R1, Reg::R2, 0);
    g.a.stx(Size::DW, Reg::R10, FP_KIND, Reg::R1);
    let known = g.a.label();
    g.a.jmp_imm(Cond::Eq, Reg::R1, 5, known);
    g.a.jmp_imm(Cond::Ne, Reg::R1, 6, unparsed);
    g.a.bind(known).alu_imm(Alu::Add, Reg::R9, 1);
    g.varnum();
    g.byte_at(Reg::R1, Reg::R2, 0);
    g.a.jmp_imm(Cond::Ne, Reg::R1, 7, unparsed);
    g.a.alu_imm(Alu::Add, Reg::R9, 1);
    g.varnum();
    g.a.jmp_imm(Cond::Gt, Reg::R4, MAX_NAME, unparsed);

    // Round-trip what the parse found through the per-CPU scratch map: values read back from
    // map memory carry no bounds, so every parse path reaches the hash loop in one verifier
    // state (otherwise the loop is re-verified for every path and the program is too big).
    g.a.mov(Reg::R6, Reg::R4);
    g.a.st_imm(Size::W, Reg::R10, FP_KEY, 0);
    g.a.ld_map_fd(Reg::R1, maps.scratch.as_raw_fd());
    g.a.mov(Reg::R2, Reg::R10)
        .alu_imm(Alu::Add, Reg::R2, i32::from(FP_KEY));
    g.a.call(Helper::MapLookupElem);
    g.a.jmp_imm(Cond::Eq, Reg::R0, 0, pass);
    g.a.stx(Size::DW, Reg::R0, 0, Reg::R9);
    g.a.stx(Size::DW, Reg::R0, 8, Reg::R6);
    g.a.ldx(Size::DW, Reg::R1, Reg::R10, FP_TOKEN_OFF);
    g.a.stx(Size::DW, Reg::R0, 16, Reg::R1);
    g.a.ldx(Size::DW, Reg::R1, Reg::R10, FP_KIND);
    g.a.stx(Size::DW, Reg::R0, 24, Reg::R1);
    g.a.st_imm(Size::DW, Reg::R10, FP_TOKEN_OFF, 0);
    g.a.st_imm(Size::DW, Reg::R10, FP_KIND, 0);
    g.a.stx(Size::DW, Reg::R10, FP_SCRATCH, Reg::R0);
    g.a.ldx(Size::DW, Reg::R9, Reg::R0, 0);
    g.bound_r9();
    g.a.ldx(Size::DW, Reg::R6, Reg::R0, 8);
    g.a.jmp_imm(Cond::Gt, Reg::R6, MAX_NAME, unparsed);

    // Hash the Name value: R0 = cfg, R3 = h, R4 = length, R5 = i, R1 = prime.
    g.a.st_imm(Size::W, Reg::R10, FP_KEY, 0);
    g.a.ld_map_fd(Reg::R1, maps.cfg.as_raw_fd());
    g.a.mov(Reg::R2, Reg::R10)
        .alu_imm(Alu::Add, Reg::R2, i32::from(FP_KEY));
    g.a.call(Helper::MapLookupElem);
    g.a.jmp_imm(Cond::Eq, Reg::R0, 0, pass);
    g.a.stx(Size::DW, Reg::R10, FP_CFG, Reg::R0);
    g.a.mov(Reg::R4, Reg::R6);
    g.a.ldx(Size::DW, Reg::R3, Reg::R0, 0);
    g.a.ld_imm64(Reg::R1, HASH_PRIME);
    g.a.mov_imm(Reg::R5, 0);
    let (top, done) = (g.a.label(), g.a.label());
    g.a.bind(top);
    g.a.jmp_reg(Cond::Ge, Reg::R5, Reg::R4, done);
    g.a.mov(Reg::R2, Reg::R7)
        .alu_reg(Alu::Add, Reg::R2, Reg::R9)
        .alu_reg(Alu::Add, Reg::R2, Reg::R5);
    g.a.mov(Reg::R6, Reg::R2).alu_imm(Alu::Add, Reg::R6, 1);
    g.a.jmp_reg(Cond::Gt, Reg::R6, Reg::R8, unparsed);
    g.a.ldx(Size::B, Reg::R6, Reg::R2, 0);
    g.a.alu_reg(Alu::Xor, Reg::R3, Reg::R6)
        .alu_reg(Alu::Mul, Reg::R3, Reg::R1);
    g.a.alu_imm(Alu::Add, Reg::R5, 1).ja(top);
    g.a.bind(done);
    g.a.ldx(Size::DW, Reg::R2, Reg::R0, 8);
    g.a.alu_reg(Alu::Xor, Reg::R3, Reg::R2);
    g.a.ld_imm64(Reg::R1, HASH_MIX);
    g.a.alu_reg(Alu::Mul, Reg::R3, Reg::R1);
    g.a.mov(Reg::R2, Reg::R3).alu_imm(Alu::Rsh, Reg::R2, 32);
    g.a.alu_reg(Alu::Xor, Reg::R3, Reg::R2);
    g.a.stx(Size::DW, Reg::R10, FP_HASH, Reg::R3);
    // Slot = h & mask.
    g.a.ldx(Size::DW, Reg::R2, Reg::R0, 16);
    g.a.alu_reg(Alu::And, Reg::R3, Reg::R2);
    g.a.stx(Size::W, Reg::R10, FP_KEY, Reg::R3);
    g.a.ld_map_fd(Reg::R1, maps.pit.as_raw_fd());
    g.a.mov(Reg::R2, Reg::R10)
        .alu_imm(Alu::Add, Reg::R2, i32::from(FP_KEY));
    g.a.call(Helper::MapLookupElem);
    g.a.jmp_imm(Cond::Eq, Reg::R0, 0, pass);
    g.a.stx(Size::DW, Reg::R10, FP_ENTRY, Reg::R0);
    g.a.call(Helper::KtimeGetNs);
    g.a.stx(Size::DW, Reg::R10, FP_NOW, Reg::R0);
    // Expire: pending > 0 and now >= deadline resets the slot.
    let live = g.a.label();
    g.a.ldx(Size::DW, Reg::R1, Reg::R10, FP_ENTRY);
    g.a.ldx(Size::W, Reg::R2, Reg::R1, 0);
    g.a.jmp_imm(Cond::Eq, Reg::R2, 0, live);
    g.a.ldx(Size::DW, Reg::R3, Reg::R1, 8);
    g.a.jmp_reg(Cond::Lt, Reg::R0, Reg::R3, live);
    g.a.st_imm(Size::W, Reg::R1, 0, 0)
        .st_imm(Size::W, Reg::R1, 4, 0);
    g.a.bind(live);
    g.a.ldx(Size::DW, Reg::R3, Reg::R10, FP_SCRATCH);
    g.a.ldx(Size::DW, Reg::R3, Reg::R3, 24);
    g.a.jmp_imm(Cond::Eq, Reg::R3, 6, data);

    // ----- Interest -----
    // R0 = now, R1 = the slot.
    g.a.ldx(Size::DW, Reg::R2, Reg::R10, FP_CFG);
    g.a.ldx(Size::DW, Reg::R3, Reg::R2, 24);
    g.a.alu_reg(Alu::Add, Reg::R3, Reg::R0);
    g.a.stx(Size::DW, Reg::R1, 8, Reg::R3);
    // Claim a free slot atomically (pending 0 -> 1): only the winner writes the record, and
    // the record stays marked collided until it is complete.
    g.a.mov_imm(Reg::R0, 0).mov_imm(Reg::R2, 1);
    g.a.cmpxchg32(Reg::R1, 0, Reg::R2);
    g.a.jmp_imm(Cond::Ne, Reg::R0, 0, collide);
    g.a.st_imm(Size::W, Reg::R1, 4, FLAG_COLLIDED);
    g.a.ldx(Size::DW, Reg::R2, Reg::R10, FP_IN);
    g.a.stx(Size::W, Reg::R1, 16, Reg::R2);
    g.a.ldx(Size::DW, Reg::R2, Reg::R10, FP_HASH);
    g.a.alu_imm(Alu::Rsh, Reg::R2, 32);
    g.a.stx(Size::W, Reg::R1, 20, Reg::R2);
    // Data destination: the Interest's destination if multicast, else its source.
    let unicast = g.a.label();
    let mac_done = g.a.label();
    g.a.ldx(Size::B, Reg::R2, Reg::R7, 0);
    g.a.alu_imm(Alu::And, Reg::R2, 1);
    g.a.jmp_imm(Cond::Eq, Reg::R2, 0, unicast);
    g.copy(Reg::R1, 32, Reg::R7, 0, 6);
    g.a.ja(mac_done);
    g.a.bind(unicast);
    g.copy(Reg::R1, 32, Reg::R7, 6, 6);
    g.a.bind(mac_done);
    // Token: 8 bytes at the recorded offset; without one the slot stays collided.
    let no_token = g.a.label();
    g.a.ldx(Size::DW, Reg::R3, Reg::R10, FP_SCRATCH);
    g.a.ldx(Size::DW, Reg::R3, Reg::R3, 16);
    g.a.jmp_imm(Cond::Eq, Reg::R3, 0, no_token);
    g.a.jmp_imm(Cond::Gt, Reg::R3, MAX_OFF, no_token);
    g.a.mov(Reg::R2, Reg::R7)
        .alu_reg(Alu::Add, Reg::R2, Reg::R3);
    g.a.mov(Reg::R4, Reg::R2).alu_imm(Alu::Add, Reg::R4, 8);
    g.a.jmp_reg(Cond::Gt, Reg::R4, Reg::R8, no_token);
    g.copy(Reg::R1, 24, Reg::R2, 0, 8);
    g.a.st_imm(Size::W, Reg::R1, 4, 0);
    g.a.bind(no_token);
    g.count(ST_RECORDED);
    g.a.ja(pass);

    g.a.bind(collide);
    g.a.mov_imm(Reg::R2, 1).atomic_add32(Reg::R1, 0, Reg::R2);
    g.a.st_imm(Size::W, Reg::R1, 4, FLAG_COLLIDED);
    g.count(ST_COLLIDED);
    g.a.ja(pass);

    // ----- Data -----
    g.a.bind(data);
    g.a.ldx(Size::W, Reg::R2, Reg::R1, 0);
    g.a.jmp_imm(Cond::Ne, Reg::R2, 1, passed);
    g.a.ldx(Size::W, Reg::R2, Reg::R1, 4);
    g.a.jmp_imm(Cond::Ne, Reg::R2, 0, passed);
    g.a.ldx(Size::DW, Reg::R2, Reg::R10, FP_HASH);
    g.a.alu_imm(Alu::Rsh, Reg::R2, 32);
    g.a.ldx(Size::W, Reg::R3, Reg::R1, 20);
    g.a.jmp_reg(Cond::Ne, Reg::R2, Reg::R3, passed);
    // Never back out of the interface the Data came in on.
    g.a.ldx(Size::W, Reg::R3, Reg::R1, 16);
    g.a.ldx(Size::DW, Reg::R2, Reg::R10, FP_IN);
    g.a.jmp_reg(Cond::Eq, Reg::R2, Reg::R3, passed);
    // The token to overwrite.
    g.a.ldx(Size::DW, Reg::R3, Reg::R10, FP_SCRATCH);
    g.a.ldx(Size::DW, Reg::R3, Reg::R3, 16);
    g.a.jmp_imm(Cond::Eq, Reg::R3, 0, passed);
    g.a.jmp_imm(Cond::Gt, Reg::R3, MAX_OFF, passed);
    // Egress MAC, from ifmac[ifindex].
    g.a.ldx(Size::W, Reg::R2, Reg::R1, 16);
    g.a.stx(Size::W, Reg::R10, FP_KEY, Reg::R2);
    g.a.ld_map_fd(Reg::R1, maps.ifmac.as_raw_fd());
    g.a.mov(Reg::R2, Reg::R10)
        .alu_imm(Alu::Add, Reg::R2, i32::from(FP_KEY));
    g.a.call(Helper::MapLookupElem);
    g.a.jmp_imm(Cond::Eq, Reg::R0, 0, passed);
    g.a.mov(Reg::R6, Reg::R0);
    g.a.ldx(Size::DW, Reg::R1, Reg::R10, FP_ENTRY);
    g.a.ldx(Size::DW, Reg::R3, Reg::R10, FP_SCRATCH);
    g.a.ldx(Size::DW, Reg::R3, Reg::R3, 16);
    g.a.jmp_imm(Cond::Gt, Reg::R3, MAX_OFF, passed);
    g.a.mov(Reg::R2, Reg::R7)
        .alu_reg(Alu::Add, Reg::R2, Reg::R3);
    g.a.mov(Reg::R4, Reg::R2).alu_imm(Alu::Add, Reg::R4, 8);
    g.a.jmp_reg(Cond::Gt, Reg::R4, Reg::R8, passed);
    // Take the record's fields, then claim the slot atomically (pending 1 -> 0): if another
    // Interest or Data got there first the frame goes up untouched.
    g.copy(Reg::R10, FP_TOK, Reg::R1, 24, 8);
    g.copy(Reg::R10, FP_MAC, Reg::R1, 32, 6);
    g.a.ldx(Size::W, Reg::R4, Reg::R1, 16);
    g.a.stx(Size::DW, Reg::R10, FP_OUT, Reg::R4);
    g.a.mov_imm(Reg::R0, 1).mov_imm(Reg::R4, 0);
    g.a.cmpxchg32(Reg::R1, 0, Reg::R4);
    g.a.jmp_imm(Cond::Ne, Reg::R0, 1, passed);
    g.copy(Reg::R2, 0, Reg::R10, FP_TOK, 8);
    g.copy(Reg::R7, 0, Reg::R10, FP_MAC, 6);
    g.copy(Reg::R7, 6, Reg::R6, 0, 6);
    g.count(ST_REDIRECTED);
    g.a.ldx(Size::DW, Reg::R1, Reg::R10, FP_OUT);
    g.a.mov_imm(Reg::R2, 0);
    g.a.call(Helper::Redirect);
    g.a.exit();

    g.a.bind(passed);
    g.count(ST_PASSED);
    g.a.ja(pass);
    g.a.bind(unparsed);
    g.count(ST_UNPARSED);
    g.a.bind(pass);
    g.a.mov_imm(Reg::R0, XDP_PASS).exit();
    g.a.finish()
}
