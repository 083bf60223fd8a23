//! The sequential model of one stored object as the API serves it: a register
//! that exists or not, with a resourceVersion and a content, changed by
//! create, get, update (PUT or PATCH, with or without a resourceVersion
//! precondition) and delete (with or without one).

use std::fmt;

use super::Model;

/// What a client asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Create {
        content: String,
    },
    Get,
    /// A PUT (`create_if_missing` for kinds that allow create on update) or
    /// a merge PATCH; `precondition` is `metadata.resourceVersion`.
    Update {
        content: String,
        precondition: Option<u64>,
        create_if_missing: bool,
    },
    /// `precondition` is `preconditions.resourceVersion`.
    Delete {
        precondition: Option<u64>,
    },
}

/// What the server answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// 201 with the new resourceVersion.
    Created(u64),
    /// 200 to an update, with the new resourceVersion.
    Written(u64),
    /// 200 to a get.
    Read {
        rv: u64,
        content: String,
    },
    /// 200 to a delete.
    Deleted,
    NotFound,
    /// 409 AlreadyExists.
    AlreadyExists,
    /// 409 Conflict.
    Conflict,
    /// Anything else (no state explains it).
    Other(String),
}

/// One call on one key.
#[derive(Clone, PartialEq, Eq)]
pub struct Op {
    pub key: String,
    pub request: Request,
    pub answer: Answer,
}

/// The register: whether the object exists, its resourceVersion (after a
/// delete, the last one written, which every later write must exceed as
/// revisions only grow) and its content.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct State {
    pub exists: bool,
    pub rv: u64,
    pub content: String,
}

/// The model of every key.
pub struct Register;

impl Register {
    fn written(state: &State, rv: u64, content: &str) -> Option<State> {
        (rv > state.rv).then(|| State {
            exists: true,
            rv,
            content: content.to_string(),
        })
    }
}

impl Model for Register {
    type State = State;
    type Op = Op;

    fn init(&self) -> State {
        State::default()
    }

    fn step(&self, s: &State, op: &Op) -> Option<State> {
        let unchanged = || Some(s.clone());
        let stale = |pre: &Option<u64>| pre.is_some_and(|rv| rv != s.rv);
        match (&op.request, &op.answer) {
            (Request::Create { content }, Answer::Created(rv)) if !s.exists => {
                Register::written(s, *rv, content)
            }
            (Request::Create { .. }, Answer::AlreadyExists) if s.exists => unchanged(),
            (Request::Get, Answer::Read { rv, content }) if s.exists => {
                (*rv == s.rv && *content == s.content).then(unchanged)?
            }
            // A kind that creates on update never answers 404 to it.
            (
                Request::Get
                | Request::Delete { .. }
                | Request::Update {
                    create_if_missing: false,
                    ..
                },
                Answer::NotFound,
            ) if !s.exists => unchanged(),
            (
                Request::Update {
                    create_if_missing: true,
                    content,
                    ..
                },
                Answer::Created(rv),
            ) if !s.exists => Register::written(s, *rv, content),
            (
                Request::Update {
                    content,
                    precondition,
                    ..
                },
                Answer::Written(rv),
            ) if s.exists && !stale(precondition) => Register::written(s, *rv, content),
            (Request::Update { precondition, .. }, Answer::Conflict)
            | (Request::Delete { precondition }, Answer::Conflict)
                if s.exists && stale(precondition) =>
            {
                unchanged()
            }
            (Request::Delete { precondition }, Answer::Deleted)
                if s.exists && !stale(precondition) =>
            {
                Some(State {
                    exists: false,
                    rv: s.rv,
                    content: String::new(),
                })
            }
            _ => None,
        }
    }
}

impl Request {
    /// `create`, `get`, `update`, `upsert` (an update that creates a missing
    /// object) or `delete`.
    #[must_use]
    pub fn verb(&self) -> &'static str {
        match self {
            Request::Create { .. } => "create",
            Request::Get => "get",
            Request::Update {
                create_if_missing: true,
                ..
            } => "upsert",
            Request::Update { .. } => "update",
            Request::Delete { .. } => "delete",
        }
    }

    #[must_use]
    pub fn precondition(&self) -> Option<u64> {
        match self {
            Request::Update { precondition, .. } | Request::Delete { precondition } => {
                *precondition
            }
            Request::Create { .. } | Request::Get => None,
        }
    }
}

impl Answer {
    /// The status code, with the reason where one code has several.
    #[must_use]
    pub fn status(&self) -> &'static str {
        match self {
            Answer::Created(_) => "201",
            Answer::Written(_) | Answer::Read { .. } | Answer::Deleted => "200",
            Answer::NotFound => "404",
            Answer::AlreadyExists => "409 AlreadyExists",
            Answer::Conflict => "409 Conflict",
            Answer::Other(_) => "unexpected",
        }
    }
}

impl Op {
    /// The call without contents or versions, for counting answers:
    /// `upsert rv → 409 Conflict`.
    #[must_use]
    pub fn shape(&self) -> String {
        let conditional = if self.request.precondition().is_some() {
            " rv"
        } else {
            ""
        };
        format!(
            "{}{conditional} → {}",
            self.request.verb(),
            self.answer.status()
        )
    }
}

impl fmt::Debug for Op {
    /// One short line: `upsert rv=12 "c3-7" → 409 Conflict`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.request.verb())?;
        if let Some(rv) = self.request.precondition() {
            write!(f, " rv={rv}")?;
        }
        if let Request::Create { content } | Request::Update { content, .. } = &self.request {
            write!(f, " {content:?}")?;
        }
        match &self.answer {
            Answer::Created(rv) | Answer::Written(rv) => {
                write!(f, " → {} rv={rv}", self.answer.status())
            }
            Answer::Read { rv, content } => write!(f, " → 200 rv={rv} {content:?}"),
            Answer::Other(what) => write!(f, " → {what}"),
            answer => write!(f, " → {}", answer.status()),
        }
    }
}
