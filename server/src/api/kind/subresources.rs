//! The subresources a kind serves beside its objects: status, scale,
//! eviction, binding, token, approval.

/// Subresources a kind serves under `{name}/{subresource}`.
#[derive(Clone, Debug, Default)]
pub struct Subresources {
    /// `/status`: writes there change only `status`; the main resource
    /// ignores `status`.
    pub status: bool,
    /// `/scale`: an `autoscaling/v1` Scale over these fields.
    pub scale: Option<ScalePaths>,
    /// `/eviction` (pods): POST an Eviction to delete the object gracefully.
    pub eviction: bool,
    /// `/binding` (pods): POST a Binding to assign the object to a node.
    pub binding: bool,
    /// `/token` (service accounts): POST a TokenRequest to get a token.
    pub token_request: bool,
    /// `/approval` (certificate signing requests): writes there change
    /// only `status.conditions`.
    pub approval: bool,
}

/// Where a kind keeps the fields its Scale subresource shows, as simple
/// JSONPaths (`.spec.replicas`).
#[derive(Clone, Debug)]
pub struct ScalePaths {
    pub spec_replicas: String,
    pub status_replicas: String,
    pub label_selector: Option<String>,
}
