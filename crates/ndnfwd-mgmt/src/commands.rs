//! The control commands: which ControlParameters fields each one requires and allows (ndn-cxx's
//! request validators), the defaults it applies, and what it answers (NFD's managers).

use ndn_packet::{FaceId, NameRef};

use crate::backend::{CommandError, FaceParams, MgmtBackend};
use crate::dispatch::RequestFace;
use crate::params::{ControlParameters, Field, FieldSet};
use crate::records::{cs_flags, face_flags, route_flags, FacePersistency, FaceStatus, Route};
use crate::response::ControlResponse;

/// Longest prefix, in components, that FIB, RIB and strategy commands accept (NFD's FIB depth).
pub(crate) const MAX_PREFIX_DEPTH: usize = 32;
/// Most CS entries one cs/erase removes (NFD's ERASE_LIMIT).
pub(crate) const CS_ERASE_LIMIT: u64 = 256;
/// NFD's route origin for applications.
const ORIGIN_APP: u64 = 0;

/// What a command does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verb {
    FaceCreate,
    FaceUpdate,
    FaceDestroy,
    FibAddNextHop,
    FibRemoveNextHop,
    RibRegister,
    RibUnregister,
    StrategySet,
    StrategyUnset,
    CsConfig,
    CsErase,
}

/// One command: its name and its parameter rules.
#[derive(Debug)]
pub(crate) struct CommandSpec {
    pub module: &'static str,
    pub verb: &'static str,
    pub kind: Verb,
    required: FieldSet,
    optional: FieldSet,
}

use Field as F;

const fn spec(
    module: &'static str,
    verb: &'static str,
    kind: Verb,
    required: &[Field],
    optional: &[Field],
) -> CommandSpec {
    CommandSpec {
        module,
        verb,
        kind,
        required: FieldSet::of(required),
        optional: FieldSet::of(optional),
    }
}

static COMMANDS: [CommandSpec; 11] = [
    spec(
        "faces",
        "create",
        Verb::FaceCreate,
        &[F::Uri],
        &[
            F::LocalUri,
            F::FacePersistency,
            F::BaseCongestionMarkingInterval,
            F::DefaultCongestionThreshold,
            F::Mtu,
            F::Flags,
            F::Mask,
        ],
    ),
    spec(
        "faces",
        "update",
        Verb::FaceUpdate,
        &[],
        &[
            F::FaceId,
            F::FacePersistency,
            F::BaseCongestionMarkingInterval,
            F::DefaultCongestionThreshold,
            F::Mtu,
            F::Flags,
            F::Mask,
        ],
    ),
    spec("faces", "destroy", Verb::FaceDestroy, &[F::FaceId], &[]),
    spec(
        "fib",
        "add-nexthop",
        Verb::FibAddNextHop,
        &[F::Name],
        &[F::FaceId, F::Cost],
    ),
    spec(
        "fib",
        "remove-nexthop",
        Verb::FibRemoveNextHop,
        &[F::Name],
        &[F::FaceId],
    ),
    spec(
        "rib",
        "register",
        Verb::RibRegister,
        &[F::Name],
        &[F::FaceId, F::Origin, F::Cost, F::Flags, F::ExpirationPeriod],
    ),
    spec(
        "rib",
        "unregister",
        Verb::RibUnregister,
        &[F::Name],
        &[F::FaceId, F::Origin],
    ),
    spec(
        "strategy-choice",
        "set",
        Verb::StrategySet,
        &[F::Name, F::Strategy],
        &[],
    ),
    spec(
        "strategy-choice",
        "unset",
        Verb::StrategyUnset,
        &[F::Name],
        &[],
    ),
    spec(
        "cs",
        "config",
        Verb::CsConfig,
        &[],
        &[F::Capacity, F::Flags, F::Mask],
    ),
    spec("cs", "erase", Verb::CsErase, &[F::Name], &[F::Count]),
];

/// The command `module`/`verb`, if there is one.
pub(crate) fn lookup(module: &[u8], verb: &[u8]) -> Option<&'static CommandSpec> {
    COMMANDS
        .iter()
        .find(|c| c.module.as_bytes() == module && c.verb.as_bytes() == verb)
}

impl CommandSpec {
    /// ndn-cxx's request validation; the error is the 400 status text.
    pub(crate) fn validate(&self, p: &ControlParameters) -> Result<(), String> {
        for f in Field::ALL {
            let present = p.has(f);
            if self.required.contains(f) && !present {
                return Err(format!("{} is required but missing", f.as_str()));
            }
            if present && !self.required.contains(f) && !self.optional.contains(f) {
                return Err(format!("{} is forbidden but present", f.as_str()));
            }
        }
        let pairs = self.optional.contains(F::Flags) && self.optional.contains(F::Mask);
        if pairs && p.flags.is_some() != p.mask.is_some() {
            return Err("Flags must be accompanied by Mask".into());
        }
        match self.kind {
            Verb::FaceDestroy if p.face_id == Some(0) => Err("FaceId must be valid".into()),
            Verb::StrategyUnset if p.name.as_ref().is_some_and(|n| n.is_empty()) => {
                Err("Name must not be ndn:/".into())
            }
            Verb::CsErase if p.count == Some(0) => Err("Count must be positive".into()),
            _ => Ok(()),
        }
    }

    /// Applies defaults and runs a validated command.
    pub(crate) fn execute(
        &self,
        mut p: ControlParameters,
        from: RequestFace,
        backend: &mut dyn MgmtBackend,
    ) -> ControlResponse {
        match self.kind {
            Verb::FaceCreate => face_create(p, backend),
            Verb::FaceUpdate => face_update(p, from, backend),
            Verb::FaceDestroy => {
                // NFD closes the face if it exists and answers 200 either way.
                if let Some(id) = p.face_id.and_then(|v| FaceId::try_from(v).ok()) {
                    if let Err(e) = backend.face_destroy(id) {
                        return error(e, 410);
                    }
                }
                ok("OK", p)
            }
            Verb::FibAddNextHop => {
                let id = self_face(&mut p, from);
                let cost = *p.cost.get_or_insert(0);
                let Some(id) = id else {
                    return ControlResponse::new(410, "Face not found");
                };
                with_prefix(p, "Success", |name| backend.fib_add_nexthop(name, id, cost))
            }
            Verb::FibRemoveNextHop => {
                // NFD answers 200 whether or not the next hop existed.
                if let Some(id) = self_face(&mut p, from) {
                    if let Some(name) = &p.name {
                        if let Err(e) = backend.fib_remove_nexthop(name.as_ref(), id) {
                            return error(e, 410);
                        }
                    }
                }
                ok("Success", p)
            }
            Verb::RibRegister => {
                let id = self_face(&mut p, from);
                let route = Route {
                    face_id: p.face_id.unwrap_or_default(),
                    origin: *p.origin.get_or_insert(ORIGIN_APP),
                    cost: *p.cost.get_or_insert(0),
                    flags: *p.flags.get_or_insert(route_flags::CHILD_INHERIT),
                    expiration_period: p.expiration_period,
                };
                if id.is_none() {
                    return ControlResponse::new(410, "Face not found");
                }
                with_prefix(p, "Success", |name| backend.rib_register(name, &route))
            }
            Verb::RibUnregister => {
                let id = self_face(&mut p, from);
                let origin = *p.origin.get_or_insert(ORIGIN_APP);
                if let (Some(id), Some(name)) = (id, &p.name) {
                    if let Err(e) = backend.rib_unregister(name.as_ref(), id, origin) {
                        return error(e, 410);
                    }
                }
                ok("Success", p)
            }
            Verb::StrategySet => {
                let (Some(name), Some(strategy)) = (&p.name, &p.strategy) else {
                    return ControlResponse::new(400, "Name and Strategy are required");
                };
                if name.len() > MAX_PREFIX_DEPTH {
                    return too_long();
                }
                match backend.strategy_set(name.as_ref(), strategy.as_ref()) {
                    Ok(instance) => {
                        p.strategy = Some(instance);
                        ok("OK", p)
                    }
                    Err(e) => error(e, 404),
                }
            }
            Verb::StrategyUnset => {
                if let Some(name) = &p.name {
                    if let Err(e) = backend.strategy_unset(name.as_ref()) {
                        return error(e, 404);
                    }
                }
                ok("OK", p)
            }
            Verb::CsConfig => {
                let admit = p.masked_bit(cs_flags::ENABLE_ADMIT);
                let serve = p.masked_bit(cs_flags::ENABLE_SERVE);
                match backend.cs_config(p.capacity, admit, serve) {
                    Ok(cs) => {
                        let body = ControlParameters {
                            capacity: Some(cs.capacity),
                            flags: Some(cs.flags),
                            ..Default::default()
                        };
                        ok("OK", body)
                    }
                    Err(e) => error(e, 500),
                }
            }
            Verb::CsErase => {
                let limit = p.count.map_or(CS_ERASE_LIMIT, |c| c.min(CS_ERASE_LIMIT));
                let Some(name) = p.name.take() else {
                    return ControlResponse::new(400, "Name is required");
                };
                match backend.cs_erase(name.as_ref(), limit) {
                    Ok(erased) => {
                        let limited = p.count.is_none_or(|c| c > CS_ERASE_LIMIT);
                        let body = ControlParameters {
                            name: Some(name),
                            count: Some(erased.erased),
                            capacity: (erased.more && limited && erased.erased == limit)
                                .then_some(CS_ERASE_LIMIT),
                            ..Default::default()
                        };
                        ok("OK", body)
                    }
                    Err(e) => error(e, 500),
                }
            }
        }
    }
}

/// Resolves FaceId (0 or absent means the requesting face) and writes the result back into the
/// parameters, as NFD's `setFaceForSelfRegistration` does. `None` when the id cannot name a face.
fn self_face(p: &mut ControlParameters, from: RequestFace) -> Option<FaceId> {
    let v = match p.face_id {
        None | Some(0) => u64::from(from.id),
        Some(v) => v,
    };
    p.face_id = Some(v);
    FaceId::try_from(v).ok()
}

/// Runs `op` on the Name (checked for depth) and answers 200 `text` with the parameters as the
/// body, or the failure.
fn with_prefix(
    p: ControlParameters,
    text: &str,
    op: impl FnOnce(NameRef<'_>) -> Result<(), CommandError>,
) -> ControlResponse {
    let Some(name) = &p.name else {
        return ControlResponse::new(400, "Name is required");
    };
    if name.len() > MAX_PREFIX_DEPTH {
        return too_long();
    }
    match op(name.as_ref()) {
        Ok(()) => ok(text, p),
        Err(e) => error(e, 410),
    }
}

fn too_long() -> ControlResponse {
    ControlResponse::new(
        414,
        format!("Prefix cannot exceed {MAX_PREFIX_DEPTH} components"),
    )
}

fn ok(text: &str, body: ControlParameters) -> ControlResponse {
    ControlResponse::new(200, text).with_body(body)
}

/// NFD's status code and text for `e`; `not_found` is the code this command uses for a missing
/// face or strategy (404 or 410).
fn error(e: CommandError, not_found: u32) -> ControlResponse {
    let (code, text) = match e {
        CommandError::FaceNotFound if not_found == 404 => (404, "Specified face does not exist"),
        CommandError::FaceNotFound => (410, "Face not found"),
        CommandError::MalformedUri => (400, "Malformed command"),
        CommandError::NonCanonicalUri => (400, "Non-canonical URI"),
        CommandError::UnsupportedProtocol => (406, "Unsupported protocol"),
        CommandError::InvalidProperties => (409, "Invalid properties specified"),
        CommandError::ConnectFailed => (504, "Connect failed"),
        CommandError::StrategyNotRegistered => (404, "Strategy not registered"),
        CommandError::TableFull => (503, "Table full"),
        CommandError::Unsupported => (501, "Not supported by this forwarder"),
        CommandError::Internal => (500, "Internal error"),
    };
    ControlResponse::new(code, text)
}

fn face_params(p: &ControlParameters) -> FaceParams {
    FaceParams {
        persistency: p.face_persistency,
        base_congestion_marking_interval: p.base_congestion_marking_interval,
        default_congestion_threshold: p.default_congestion_threshold,
        mtu: p.mtu,
        local_fields: p.masked_bit(face_flags::LOCAL_FIELDS_ENABLED),
        lp_reliability: p.masked_bit(face_flags::LP_RELIABILITY_ENABLED),
        congestion_marking: p.masked_bit(face_flags::CONGESTION_MARKING_ENABLED),
    }
}

/// NFD's `makeUpdateFaceResponse`: FaceId, FacePersistency, Flags and the optional congestion
/// and MTU fields; `makeCreateFaceResponse` adds Uri and LocalUri.
fn face_body(f: &FaceStatus, with_uris: bool) -> ControlParameters {
    ControlParameters {
        face_id: Some(f.face_id),
        uri: with_uris.then(|| f.uri.clone()),
        local_uri: with_uris.then(|| f.local_uri.clone()),
        face_persistency: Some(f.face_persistency),
        flags: Some(f.flags),
        base_congestion_marking_interval: f.base_congestion_marking_interval,
        default_congestion_threshold: f.default_congestion_threshold,
        mtu: f.mtu,
        ..Default::default()
    }
}

fn face_create(mut p: ControlParameters, backend: &mut dyn MgmtBackend) -> ControlResponse {
    p.face_persistency
        .get_or_insert(FacePersistency::Persistent);
    let Some(uri) = p.uri.as_deref() else {
        return ControlResponse::new(400, "Uri is required but missing");
    };
    match backend.face_create(uri, p.local_uri.as_deref(), &face_params(&p)) {
        Ok(c) if c.existed => ControlResponse::new(409, "Conflict with existing face")
            .with_body(face_body(&c.face, true)),
        Ok(c) => ok("OK", face_body(&c.face, true)),
        Err(e) => error(e, 404),
    }
}

fn face_update(
    mut p: ControlParameters,
    from: RequestFace,
    backend: &mut dyn MgmtBackend,
) -> ControlResponse {
    let Some(id) = self_face(&mut p, from) else {
        return error(CommandError::FaceNotFound, 404);
    };
    match backend.face_update(id, &face_params(&p)) {
        Ok(f) => ok("OK", face_body(&f, false)),
        Err(CommandError::InvalidProperties) => {
            // NFD echoes the rejected properties in the body.
            let body = ControlParameters {
                face_persistency: p.face_persistency,
                flags: p.flags,
                mask: p.mask,
                ..Default::default()
            };
            error(CommandError::InvalidProperties, 404).with_body(body)
        }
        Err(e) => error(e, 404),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndn_packet::Name;

    fn params(f: impl FnOnce(&mut ControlParameters)) -> ControlParameters {
        let mut p = ControlParameters::default();
        f(&mut p);
        p
    }

    #[test]
    fn validation_follows_ndn_cxx() {
        let reg = lookup(b"rib", b"register").unwrap();
        assert_eq!(
            reg.validate(&ControlParameters::default()),
            Err("Name is required but missing".into())
        );
        let name = Some(Name::from_uri("/a").unwrap());
        let p = params(|p| {
            p.name = name.clone();
            p.mask = Some(1);
        });
        assert_eq!(
            reg.validate(&p),
            Err("Mask is forbidden but present".into())
        );
        let p = params(|p| {
            p.name = name.clone();
            p.flags = Some(3);
        });
        assert_eq!(reg.validate(&p), Ok(()), "rib flags need no mask");
        let cfg = lookup(b"cs", b"config").unwrap();
        let p = params(|p| p.flags = Some(1));
        assert_eq!(
            cfg.validate(&p),
            Err("Flags must be accompanied by Mask".into())
        );
        let destroy = lookup(b"faces", b"destroy").unwrap();
        assert!(destroy.validate(&params(|p| p.face_id = Some(0))).is_err());
        assert!(destroy.validate(&params(|p| p.face_id = Some(7))).is_ok());
        let unset = lookup(b"strategy-choice", b"unset").unwrap();
        assert!(unset
            .validate(&params(|p| p.name = Some(Name::new())))
            .is_err());
        let erase = lookup(b"cs", b"erase").unwrap();
        let p = params(|p| {
            p.name = name.clone();
            p.count = Some(0);
        });
        assert!(erase.validate(&p).is_err());
        assert!(lookup(b"rib", b"announce").is_none());
        assert!(lookup(b"faces", b"list").is_none());
    }
}
