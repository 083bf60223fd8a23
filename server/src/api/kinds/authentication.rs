//! `authentication.{domain}` as data: TokenReview and SelfSubjectReview,
//! kinds that are never stored (a create is a question; the answerers are
//! in `request::authn::review`). Kubernetes 1.32 serves both at v1 by
//! default; SelfSubjectReview also has v1beta1 (beta since 1.27, deprecated
//! in 1.30, gone in 1.33) and v1alpha1, both off unless `--runtime-config`
//! turns them on, and answered as v1 is. All cluster-scoped.

use std::sync::Arc;

use crate::api::deprecation::Deprecation;
use crate::api::kind::{Answerer, KindSpec};
use crate::api::registry::Registry;
use crate::api::schema::Schema;

/// An identity as reviews report it (`authentication/v1` UserInfo).
fn user_info() -> Schema {
    Schema::object([
        ("username", Schema::string().describe("The user's name.")),
        (
            "uid",
            Schema::string().describe("A value that tells this user apart over time."),
        ),
        (
            "groups",
            Schema::string_list()
                .atomic_list()
                .describe("The groups the user is in."),
        ),
        (
            "extra",
            Schema::map(Schema::string_list())
                .describe("Further facts the authenticator gave about the user."),
        ),
    ])
    .proto_fields([("username", 1), ("uid", 2), ("groups", 3), ("extra", 4)])
    .describe("Who a user is.")
}

/// A kind asked, not stored: `metadata` may be left out (the generic store's
/// need of a name does not apply).
pub(crate) fn question<I, K>(fields: I) -> Schema
where
    I: IntoIterator<Item = (K, Schema)>,
    K: Into<String>,
{
    let mut schema = Schema::resource(fields);
    schema.required.retain(|f| f != "metadata");
    schema
}

/// The schema of an `authentication/v1` TokenReview.
#[must_use]
pub fn token_review_schema() -> Schema {
    question([
        (
            "spec",
            Schema::object([
                (
                    "token",
                    Schema::string().describe("The bearer token to check."),
                ),
                (
                    "audiences",
                    Schema::string_list().atomic_list().describe(
                        "Audiences the token must be valid for; the API server's own when empty.",
                    ),
                ),
            ])
            .proto_fields([("token", 1), ("audiences", 2)])
            .describe("The token to check."),
        ),
        (
            "status",
            Schema::object([
                (
                    "authenticated",
                    Schema::boolean().describe("Whether the token belongs to a known user."),
                ),
                ("user", user_info()),
                (
                    "audiences",
                    Schema::string_list()
                        .atomic_list()
                        .describe("The audiences asked for that the token is valid for."),
                ),
                (
                    "error",
                    Schema::string()
                        .describe("Why the token could not be checked, if it could not."),
                ),
            ])
            .proto_fields([
                ("authenticated", 1),
                ("user", 2),
                ("error", 3),
                ("audiences", 4),
            ])
            .describe("The answer: whether the token is known, and whose it is."),
        ),
    ])
    .proto_fields([("metadata", 1), ("spec", 2), ("status", 3)])
    .describe("TokenReview asks whether a bearer token belongs to a known user.")
}

/// The schema of an `authentication/v1` SelfSubjectReview.
#[must_use]
pub fn self_subject_review_schema() -> Schema {
    question([(
        "status",
        Schema::object([("userInfo", user_info())])
            .proto_fields([("userInfo", 1)])
            .describe("The requester as the API server authenticated them."),
    )])
    .proto_fields([("metadata", 1), ("status", 2)])
    .describe("SelfSubjectReview tells the requester who the API server takes them for.")
}

/// Registers TokenReview and SelfSubjectReview with their answerers.
pub fn add(
    registry: &Registry,
    api_domain: &str,
    token_review: Arc<dyn Answerer>,
    self_subject_review: Arc<dyn Answerer>,
) {
    let group = format!("authentication.{api_domain}");
    registry.add(KindSpec {
        answered_by: Some(token_review),
        ..KindSpec::new(
            &group,
            "v1",
            "TokenReview",
            "tokenreviews",
            false,
            token_review_schema(),
        )
    });
    for version in ["v1", "v1beta1", "v1alpha1"] {
        let mut kind = KindSpec {
            answered_by: Some(Arc::clone(&self_subject_review)),
            ..KindSpec::new(
                &group,
                version,
                "SelfSubjectReview",
                "selfsubjectreviews",
                false,
                self_subject_review_schema(),
            )
        };
        if version == "v1beta1" {
            let replacement = format!("{group}/v1");
            kind.deprecation = Some(Deprecation::built_in(
                &kind,
                "1.30",
                "1.33",
                Some((&replacement, "SelfSubjectReview")),
            ));
        }
        registry.add(kind);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::protobuf;

    #[test]
    fn reviews_round_trip_through_protobuf_with_extra_values() {
        let review = json!({
            "metadata": {"name": "r"},
            "spec": {"token": "t", "audiences": ["a", "b"]},
            "status": {
                "authenticated": true,
                "user": {"username": "jane", "uid": "1", "groups": ["g"],
                         "extra": {"scopes": ["x", "y"], "single": ["z"]}},
                "audiences": ["a"],
                "error": "none"
            }
        });
        let schema = token_review_schema();
        assert!(protobuf::offered(&schema));
        let bytes = protobuf::encode_message(&schema, &review).expect("encodes");
        let back = protobuf::decode_message(&schema, &bytes).expect("decodes");
        assert_eq!(serde_json::Value::Object(back), review);
        let me = json!({"status": {"userInfo": {"username": "jane", "extra": {"k": ["v"]}}}});
        let schema = self_subject_review_schema();
        let bytes = protobuf::encode_message(&schema, &me).expect("encodes");
        // UserInfo.extra is map<string, ExtraValue{repeated string items = 1}>:
        // status(2) { userInfo(1) { username(1) "jane", extra(4) { key(1) "k",
        // value(2) { items(1) "v" } } } }.
        assert_eq!(
            bytes,
            [
                0x12, 0x12, 0x0a, 0x10, 0x0a, 0x04, b'j', b'a', b'n', b'e', 0x22, 0x08, 0x0a, 0x01,
                b'k', 0x12, 0x03, 0x0a, 0x01, b'v'
            ]
        );
        let back = protobuf::decode_message(&schema, &bytes).expect("decodes");
        assert_eq!(serde_json::Value::Object(back), me);
    }
}
