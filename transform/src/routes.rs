//! Choosing a transformer for a key: by key prefix (the longest matching
//! prefix wins), then by the resource the key names (an encryption
//! configuration's entries); keys neither covers are stored as they are.

use std::borrow::Cow;
use std::sync::Arc;

use crate::resources::ResourceRoutes;
use crate::{Error, Identity, Plain, Transformer};

/// The transformers of a store, by key prefix.
#[derive(Clone, Default)]
pub struct Transformers {
    /// Longest prefix first, so the first match is the most specific.
    routes: Vec<(Vec<u8>, Arc<dyn Transformer>)>,
    /// An encryption configuration's chains by resource.
    resources: Option<Arc<ResourceRoutes>>,
}

impl std::fmt::Debug for Transformers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(
                self.routes
                    .iter()
                    .map(|(p, t)| (String::from_utf8_lossy(p), t.is_identity())),
            )
            .finish()
    }
}

impl Transformers {
    /// Every value stored as it is.
    #[must_use]
    pub fn identity() -> Transformers {
        Transformers::default()
    }

    /// Adds (or replaces) the transformer of keys starting with `prefix`.
    #[must_use]
    pub fn with(mut self, prefix: impl Into<Vec<u8>>, transformer: Arc<dyn Transformer>) -> Self {
        let prefix = prefix.into();
        self.routes.retain(|(p, _)| *p != prefix);
        let at = self
            .routes
            .iter()
            .position(|(p, _)| p.len() < prefix.len())
            .unwrap_or(self.routes.len());
        self.routes.insert(at, (prefix, transformer));
        self
    }

    /// Routes the keys no prefix matches by the resource they name.
    #[must_use]
    pub fn with_resources(mut self, resources: ResourceRoutes) -> Self {
        self.resources = Some(Arc::new(resources));
        self
    }

    /// The routes by resource, if any.
    #[must_use]
    pub fn resources(&self) -> Option<&ResourceRoutes> {
        self.resources.as_deref()
    }

    /// Whether every key's values pass unchanged (callers then skip all
    /// per-value work).
    #[must_use]
    pub fn is_identity(&self) -> bool {
        self.routes.iter().all(|(_, t)| t.is_identity())
            && self
                .resources
                .as_ref()
                .is_none_or(|r| r.chains().next().is_none())
    }

    /// The transformer of `key`.
    #[must_use]
    pub fn for_key(&self, key: &[u8]) -> &dyn Transformer {
        if let Some((_, t)) = self.routes.iter().find(|(p, _)| key.starts_with(p)) {
            return t.as_ref();
        }
        match self.resources.as_deref().and_then(|r| r.for_key(key)) {
            Some(chain) => chain,
            None => &Identity,
        }
    }

    /// `plain` as stored under `key`.
    pub fn transform_to_storage<'a>(
        &self,
        key: &[u8],
        plain: &'a [u8],
    ) -> Result<Cow<'a, [u8]>, Error> {
        self.for_key(key).transform_to_storage(key, plain)
    }

    /// What is stored under `key`, as the caller wrote it.
    pub fn transform_from_storage<'a>(
        &self,
        key: &[u8],
        stored: &'a [u8],
    ) -> Result<Plain<'a>, Error> {
        self.for_key(key).transform_from_storage(key, stored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prepends a marker: enough to see which transformer ran.
    struct Mark(&'static [u8]);

    impl Transformer for Mark {
        fn transform_to_storage<'a>(
            &self,
            _key: &[u8],
            plain: &'a [u8],
        ) -> Result<Cow<'a, [u8]>, Error> {
            Ok(Cow::Owned([self.0, plain].concat()))
        }

        fn transform_from_storage<'a>(
            &self,
            _key: &[u8],
            stored: &'a [u8],
        ) -> Result<Plain<'a>, Error> {
            let value = stored
                .strip_prefix(self.0)
                .ok_or_else(|| Error::new("not marked"))?;
            Ok(Plain {
                value: Cow::Borrowed(value),
                stale: false,
            })
        }
    }

    #[test]
    fn the_longest_prefix_wins_and_other_keys_pass_unchanged() {
        let t = Transformers::identity()
            .with("/registry/", Arc::new(Mark(b"r:")))
            .with("/registry/secrets/", Arc::new(Mark(b"s:")));
        assert!(!t.is_identity());
        let stored = |k: &[u8]| t.transform_to_storage(k, b"v").expect("to").into_owned();
        assert_eq!(stored(b"/registry/secrets/ns/a"), b"s:v");
        assert_eq!(stored(b"/registry/pods/ns/a"), b"r:v");
        assert!(matches!(
            t.transform_to_storage(b"/other", b"v"),
            Ok(Cow::Borrowed(b"v"))
        ));
        let back = t
            .transform_from_storage(b"/registry/secrets/ns/a", b"s:v")
            .expect("from");
        assert_eq!(back.value, Cow::Borrowed(&b"v"[..]));
        assert_eq!(
            t.transform_from_storage(b"/registry/secrets/ns/a", b"r:v"),
            Err(Error::new("not marked"))
        );
        let replaced = t.with("/registry/", Arc::new(Identity));
        assert_eq!(
            replaced
                .transform_to_storage(b"/registry/pods/ns/a", b"v")
                .expect("to"),
            Cow::Borrowed(&b"v"[..])
        );
    }

    #[test]
    fn identity_everywhere_is_identity() {
        assert!(Transformers::identity().is_identity());
        assert!(
            Transformers::identity()
                .with("/registry/", Arc::new(Identity))
                .is_identity()
        );
    }
}
