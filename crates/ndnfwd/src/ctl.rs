//! `ndnfwd ctl`: NFD management from the command line (the subset of `nfdc` that ndnfwd
//! serves), over the same protocol and the same Unix socket as any NDN app.
//!
//! Everything is done by `ndnfwd_mgmt::client` (command Interests, signed as packet format v0.3
//! with DigestSha256, which NFD accepts too; dataset fetching; tables and JSON); this module
//! parses arguments, picks the face (`ctl_face`), prints, and sets the exit code:
//!
//! - 0: done (datasets fetched, or the command answered 200);
//! - 1: the forwarder refused: the status code and text are printed (`404 Route not found`);
//! - 2: bad arguments (clap's usage errors, which include names that do not parse);
//! - 3: the forwarder could not be reached, did not answer in time, Nacked the request, or sent
//!   something that does not decode.

use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use ndn_packet::{FaceId, Name};
use ndnfwd_mgmt::client::{self, Client, ClientError, ExchangeError, Signing};
use ndnfwd_mgmt::records::FacePersistency;
use ndnfwd_mgmt::ControlResponse;

use crate::ctl_face::{self, CtlFace};

/// Arguments of `ndnfwd ctl`.
#[derive(Args, Debug)]
pub struct CtlArgs {
    /// Face URI of the forwarder: unix:///path, tcp4://host:port, udp4://host:port. Default:
    /// $NDN_CLIENT_TRANSPORT, else unix:///run/nfd/nfd.sock (or the socket an unprivileged
    /// `ndnfwd run` falls back to, when only that one exists).
    #[arg(long, global = true)]
    connect: Option<String>,
    /// Print JSON instead of tables.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: CtlCommand,
}

/// What `ndnfwd ctl` does.
#[derive(Subcommand, Debug)]
enum CtlCommand {
    /// Forwarder status (status/general).
    Status,
    /// Faces.
    #[command(subcommand)]
    Face(FaceCmd),
    /// Listening channels (faces/channels).
    Channels,
    /// Routes in the RIB.
    #[command(subcommand)]
    Route(RouteCmd),
    /// The FIB.
    #[command(subcommand)]
    Fib(ListCmd),
    /// Strategy choices.
    #[command(subcommand)]
    Strategy(StrategyCmd),
    /// The content store.
    #[command(subcommand)]
    Cs(CsCmd),
}

#[derive(Subcommand, Debug)]
enum ListCmd {
    /// List the entries.
    List,
}

#[derive(Subcommand, Debug)]
enum FaceCmd {
    /// List faces (faces/list).
    List,
    /// Create a face to a remote URI (faces/create), e.g. udp4://192.0.2.1:6363.
    Create {
        /// Remote face URI.
        uri: String,
        /// Persistency of the new face.
        #[arg(long, value_enum)]
        persistency: Option<Persistency>,
    },
    /// Destroy a face (faces/destroy).
    Destroy {
        /// Face id.
        face: FaceId,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Persistency {
    Persistent,
    Permanent,
}

#[derive(Subcommand, Debug)]
enum RouteCmd {
    /// List routes (rib/list).
    List,
    /// Add a route (rib/register), child-inherit.
    Add {
        /// Name prefix.
        #[arg(value_parser = parse_name)]
        prefix: Name,
        /// Next-hop face id.
        face: FaceId,
        /// Route cost.
        #[arg(long, default_value_t = 0)]
        cost: u64,
        /// Route origin (255: static).
        #[arg(long, default_value_t = 255)]
        origin: u64,
        /// Lifetime in ms (default: never expires).
        #[arg(long)]
        expires: Option<u64>,
    },
    /// Remove a route (rib/unregister).
    Remove {
        /// Name prefix.
        #[arg(value_parser = parse_name)]
        prefix: Name,
        /// Next-hop face id.
        face: FaceId,
        /// Route origin.
        #[arg(long, default_value_t = 255)]
        origin: u64,
    },
}

#[derive(Subcommand, Debug)]
enum StrategyCmd {
    /// List strategy choices (strategy-choice/list).
    List,
    /// Choose the strategy for a prefix (strategy-choice/set).
    Set {
        /// Name prefix.
        #[arg(value_parser = parse_name)]
        prefix: Name,
        /// Strategy: a full name (/localhost/nfd/strategy/multicast) or its last part
        /// (multicast, best-route).
        #[arg(value_parser = parse_strategy)]
        strategy: Name,
    },
    /// Remove the choice for a prefix (strategy-choice/unset).
    Unset {
        /// Name prefix.
        #[arg(value_parser = parse_name)]
        prefix: Name,
    },
}

#[derive(Subcommand, Debug)]
enum CsCmd {
    /// Capacity, switches and counters (cs/info).
    Info,
    /// Change capacity and the admit/serve switches (cs/config).
    Config {
        /// Capacity in packets.
        #[arg(long)]
        capacity: Option<u64>,
        /// Admit Data into the CS.
        #[arg(long)]
        admit: Option<bool>,
        /// Answer Interests from the CS.
        #[arg(long)]
        serve: Option<bool>,
    },
    /// Erase cached Data under a prefix (cs/erase).
    Erase {
        /// Name prefix.
        #[arg(value_parser = parse_name)]
        prefix: Name,
        /// Most entries to erase.
        #[arg(long)]
        count: Option<u64>,
    },
}

/// A failure with its exit code.
struct Failure {
    code: u8,
    message: String,
}

impl From<ClientError> for Failure {
    fn from(e: ClientError) -> Self {
        match e {
            ClientError::Rejected(code) => Failure {
                code: 1,
                message: format!("the forwarder refused the request: status {code}"),
            },
            e => Failure {
                code: 3,
                message: e.to_string(),
            },
        }
    }
}

fn parse_name(s: &str) -> Result<Name, String> {
    Name::from_uri(s).map_err(|e| format!("`{s}` is not an NDN name: {e}"))
}

/// A strategy name from its full form or its last component.
fn parse_strategy(s: &str) -> Result<Name, String> {
    if s.starts_with('/') {
        parse_name(s)
    } else {
        parse_name(&format!("{}/{s}", ndnfwd_fwd::strategy::STRATEGY_PREFIX))
    }
}

/// Writes to stdout; a closed pipe (`ndnfwd ctl ... | head`) is not an error.
fn out(text: &str) {
    use std::io::Write as _;
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(text.as_bytes()).and_then(|()| o.flush());
}

/// Prints a command's answer; a status other than 200 is a failure (exit 1).
fn answered(what: &str, r: &ControlResponse, json: bool) -> Result<(), Failure> {
    if json {
        out(&(client::to_json(r) + "\n"));
    } else if r.code == 200 {
        out(&client::response_text(r));
    }
    if r.code == 200 {
        Ok(())
    } else {
        Err(Failure {
            code: 1,
            message: format!("{what} failed: {} {}", r.code, r.text),
        })
    }
}

/// Prints a dataset as JSON or as the table `text` makes.
fn show<T: serde::Serialize + ?Sized>(v: &T, json: bool, text: impl FnOnce(&T) -> String) {
    if json {
        out(&(client::to_json(v) + "\n"));
    } else {
        out(&text(v));
    }
}

fn run(args: CtlArgs) -> Result<(), Failure> {
    let uri = ctl_face::resolve(args.connect.as_deref());
    let mut face = CtlFace::connect(&uri).map_err(|message| Failure { code: 3, message })?;
    let mut c = Client::new(|w: &[u8]| face.exchange(w), Signing::Digest);
    execute(&mut c, args.command, args.json).map_err(|f| match f.code {
        3 => Failure {
            code: 3,
            message: format!("{uri}: {}", f.message),
        },
        _ => f,
    })
}

fn execute<X>(c: &mut Client<X>, command: CtlCommand, json: bool) -> Result<(), Failure>
where
    X: FnMut(&[u8]) -> Result<Vec<u8>, ExchangeError>,
{
    match command {
        CtlCommand::Status => show(&c.status()?, json, client::status_text),
        CtlCommand::Channels => show(&c.channels()?, json, |v| client::channels_table(v)),
        CtlCommand::Face(FaceCmd::List) => show(&c.faces()?, json, |v| client::faces_table(v)),
        CtlCommand::Face(FaceCmd::Create { uri, persistency }) => {
            let p = persistency.map(|p| match p {
                Persistency::Persistent => FacePersistency::Persistent,
                Persistency::Permanent => FacePersistency::Permanent,
            });
            answered("faces/create", &c.face_create(&uri, p)?, json)?;
        }
        CtlCommand::Face(FaceCmd::Destroy { face }) => {
            answered("faces/destroy", &c.face_destroy(face)?, json)?;
        }
        CtlCommand::Route(RouteCmd::List) => show(&c.routes()?, json, |v| client::routes_table(v)),
        CtlCommand::Route(RouteCmd::Add {
            prefix,
            face,
            cost,
            origin,
            expires,
        }) => {
            let r = c.route_add(&prefix, face, origin, cost, expires)?;
            answered("rib/register", &r, json)?;
        }
        CtlCommand::Route(RouteCmd::Remove {
            prefix,
            face,
            origin,
        }) => {
            let r = c.route_remove(&prefix, face, origin)?;
            answered("rib/unregister", &r, json)?;
        }
        CtlCommand::Fib(ListCmd::List) => show(&c.fib()?, json, |v| client::fib_table(v)),
        CtlCommand::Strategy(StrategyCmd::List) => {
            show(&c.strategies()?, json, |v| client::strategies_table(v));
        }
        CtlCommand::Strategy(StrategyCmd::Set { prefix, strategy }) => {
            let r = c.strategy_set(&prefix, &strategy)?;
            answered("strategy-choice/set", &r, json)?;
        }
        CtlCommand::Strategy(StrategyCmd::Unset { prefix }) => {
            let r = c.strategy_unset(&prefix)?;
            answered("strategy-choice/unset", &r, json)?;
        }
        CtlCommand::Cs(CsCmd::Info) => show(&c.cs_info()?, json, client::cs_text),
        CtlCommand::Cs(CsCmd::Config {
            capacity,
            admit,
            serve,
        }) => answered("cs/config", &c.cs_config(capacity, admit, serve)?, json)?,
        CtlCommand::Cs(CsCmd::Erase { prefix, count }) => {
            answered("cs/erase", &c.cs_erase(&prefix, count)?, json)?;
        }
    }
    Ok(())
}

/// Runs `ndnfwd ctl`; returns the exit code (see the module docs).
pub fn main(args: CtlArgs) -> ExitCode {
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("ndnfwd ctl: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}
