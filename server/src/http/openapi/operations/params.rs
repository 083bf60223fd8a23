//! The query parameters the operations take (name, OpenAPI type and the
//! description Kubernetes gives them).

/// A query parameter: name, OpenAPI type, description.
pub(super) type Param = (&'static str, &'static str, &'static str);

pub(super) const PRETTY: Param = (
    "pretty",
    "string",
    "If 'true', then the output is pretty printed.",
);
pub(super) const DRY_RUN: Param = (
    "dryRun",
    "string",
    "When present, indicates that modifications should not be persisted. Valid value: All.",
);
pub(super) const FIELD_MANAGER: Param = (
    "fieldManager",
    "string",
    "A name associated with the actor or entity that is making these changes.",
);
pub(super) const FIELD_VALIDATION: Param = (
    "fieldValidation",
    "string",
    "How the server treats unknown and duplicate fields in the request body: Ignore, Warn or Strict.",
);
pub(super) const FORCE: Param = (
    "force",
    "boolean",
    "Force re-acquires conflicting fields owned by other managers; apply requests only.",
);
pub(super) const LIST: [Param; 9] = [
    (
        "allowWatchBookmarks",
        "boolean",
        "Requests watch events of type BOOKMARK.",
    ),
    (
        "continue",
        "string",
        "The continue token of the previous page of a chunked list.",
    ),
    (
        "fieldSelector",
        "string",
        "Restricts the returned objects by their fields.",
    ),
    (
        "labelSelector",
        "string",
        "Restricts the returned objects by their labels.",
    ),
    (
        "limit",
        "integer",
        "The most objects one list response returns.",
    ),
    (
        "resourceVersion",
        "string",
        "Which resource versions the request may be served from.",
    ),
    (
        "resourceVersionMatch",
        "string",
        "How resourceVersion applies to list calls.",
    ),
    (
        "sendInitialEvents",
        "boolean",
        "Starts a watch with synthetic events for the current state.",
    ),
    (
        "timeoutSeconds",
        "integer",
        "Timeout of the list/watch call.",
    ),
];
pub(super) const WATCH: Param = (
    "watch",
    "boolean",
    "Watch for changes and return them as a stream of events.",
);
pub(super) const DELETE: [Param; 3] = [
    (
        "gracePeriodSeconds",
        "integer",
        "The duration in seconds before the object should be deleted.",
    ),
    (
        "orphanDependents",
        "boolean",
        "Deprecated: use propagationPolicy.",
    ),
    (
        "propagationPolicy",
        "string",
        "Whether and how garbage collection is performed: Orphan, Background or Foreground.",
    ),
];
