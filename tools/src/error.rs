//! The tool's one error type, and the exit code each kind of failure gives.
//!
//! Exit codes: 0 success; 1 failure, or damage that loses committed data;
//! 2 unusable command line; 3 (`verify` only) nothing damaged, but crash
//! residue the next writable open or `repair` truncates.

use std::io;

/// `verify`'s exit code when the only thing found is a torn tail of the
/// active segment: an interrupted write that was never acknowledged.
pub const EXIT_RECOVERABLE: u8 = 3;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The command line cannot be used: exit 2.
    #[error("{0}")]
    Usage(String),
    /// The engine failed or refused: exit 1.
    #[error(transparent)]
    Engine(#[from] cairn_engine::Error),
    /// The engine refused an operation; `what` says which: exit 1.
    #[error("{what}: {source}")]
    Refused {
        /// "cannot compact", ...
        what: String,
        /// The engine's reason.
        source: cairn_engine::Error,
    },
    /// The directory is not in a state the command accepts: exit 1.
    #[error("{0}")]
    Failed(String),
    /// A stored value does not transform back to what was written: exit 1.
    #[error("the value of {key} at revision {revision} cannot be read: {reason}")]
    Unreadable {
        key: String,
        revision: u64,
        reason: String,
    },
    /// A key has no value or history: exit 1.
    #[error("{0}")]
    NotFound(String),
    /// Writing to stdout failed.
    #[error("writing output: {0}")]
    Output(#[from] io::Error),
}

impl CliError {
    /// The process exit code for this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            _ => 1,
        }
    }

    /// A reader closed the pipe (`cairn-store dump | head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, CliError::Output(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }

    /// Wraps an engine error with the operation it stopped.
    pub fn refused(what: impl Into<String>) -> impl FnOnce(cairn_engine::Error) -> CliError {
        let what = what.into();
        move |source| CliError::Refused { what, source }
    }
}

/// Result of a command.
pub type Result<T, E = CliError> = std::result::Result<T, E>;
