//! The service-account issuer's discovery documents on the wire:
//! `/.well-known/openid-configuration` as `application/json` and
//! `/openid/v1/jwks` as `application/jwk-set+json`, both cacheable for an
//! hour, as kube-apiserver serves them. Not served (404) when the issuer
//! is not an `https` URL.

use http::{Response, header};

use super::body::{self, Body};
use super::router::Route;
use crate::api::error::ApiError;
use crate::app::AppState;
use crate::request::authn::service_account::discovery::{
    CACHE_CONTROL, JWKS_CONTENT_TYPE, OPENID_CONFIGURATION_CONTENT_TYPE,
};

/// The document `route` names, if it is one of the two.
pub fn serve(state: &AppState, route: &Route<'_>) -> Option<Result<Response<Body>, ApiError>> {
    let issuer = &state.token_issuer;
    let (doc, content_type) = match route {
        Route::OpenIdConfiguration => (
            issuer.openid_configuration(&state.config.advertise_address()),
            OPENID_CONFIGURATION_CONTENT_TYPE,
        ),
        Route::Jwks => (issuer.jwks(), JWKS_CONTENT_TYPE),
        _ => return None,
    };
    if !issuer.serves_discovery() {
        return Some(Err(ApiError::PathNotFound));
    }
    let bytes = serde_json::to_vec(&doc).expect("JSON values serialize");
    Some(
        Response::builder()
            .status(200)
            .header(header::CONTENT_TYPE, content_type)
            .header(header::CACHE_CONTROL, CACHE_CONTROL)
            .body(body::full(bytes))
            .map_err(|e| ApiError::Internal(e.to_string())),
    )
}
