//! From a validated configuration to [`Transformers`]: each key becomes a
//! link of its entry's chain under Kubernetes' prefix; a resource named
//! exactly in several entries reads and writes with their providers in
//! order, as Kubernetes appends them; a resource that an earlier wildcard
//! already covers is refused (it would be masked).

use std::collections::HashSet;
use std::sync::Arc;

use super::{EncryptionConfig, KmsProvider, Provider};
use crate::chain::{Chain, Link};
use crate::cipher::{AesCbc, AesGcm, Cipher, Prefixed, Secretbox};
use crate::resources::{GroupResource, ResourceRoutes};
use crate::{Identity, Transformer, Transformers};

/// The prefix of values a KMS v2 provider wrote.
#[must_use]
pub fn kms_prefix(name: &str) -> String {
    format!("k8s:enc:kms:v2:{name}:")
}

/// Refuses an entry masked by an earlier wildcard.
pub fn check_masking(config: &EncryptionConfig) -> Result<(), String> {
    let mut seen: HashSet<GroupResource> = HashSet::new();
    let every = GroupResource::parse("*.*");
    for (i, entry) in config.resources.iter().enumerate() {
        for (j, gr) in entry.resources.iter().enumerate() {
            let group_wide = GroupResource {
                group: gr.group.clone(),
                resource: "*".into(),
            };
            for wider in [&group_wide, &every] {
                if seen.contains(wider) {
                    return Err(format!(
                        "resources[{i}].resources[{j}]: resource {:?} is masked by earlier rule {:?}",
                        gr.display(),
                        wider.display()
                    ));
                }
            }
        }
        seen.extend(entry.resources.iter().cloned());
    }
    Ok(())
}

fn links(
    providers: &[Provider],
    kms: &mut dyn FnMut(&KmsProvider) -> Arc<dyn Transformer>,
) -> Vec<Link> {
    let mut out = Vec::new();
    for provider in providers {
        match provider {
            Provider::Identity => out.push(Link {
                prefix: Vec::new(),
                transformer: Arc::new(Identity),
            }),
            Provider::Kms(spec) => out.push(Link {
                prefix: kms_prefix(&spec.name).into_bytes(),
                transformer: kms(spec),
            }),
            Provider::AesGcm(keys) => {
                for k in keys {
                    let cipher = AesGcm::new(k.secret()).expect("validated key size");
                    out.push(link(keyed_prefix("aesgcm", &k.name), cipher));
                }
            }
            Provider::AesCbc(keys) => {
                for k in keys {
                    let cipher = AesCbc::new(k.secret()).expect("validated key size");
                    out.push(link(keyed_prefix("aescbc", &k.name), cipher));
                }
            }
            Provider::Secretbox(keys) => {
                for k in keys {
                    let cipher = Secretbox::new(k.secret()).expect("validated key size");
                    out.push(link(keyed_prefix("secretbox", &k.name), cipher));
                }
            }
        }
    }
    out
}

/// The prefix of values a local cipher's key wrote.
#[must_use]
pub fn keyed_prefix(provider: &str, key_name: &str) -> String {
    format!("k8s:enc:{provider}:v1:{key_name}:")
}

fn link(prefix: String, cipher: impl Cipher + 'static) -> Link {
    Link {
        transformer: Arc::new(Prefixed::new(prefix.clone(), cipher)),
        prefix: prefix.into_bytes(),
    }
}

/// See the module docs.
pub fn transformers(
    config: &EncryptionConfig,
    kms: &mut dyn FnMut(&KmsProvider) -> Arc<dyn Transformer>,
) -> Transformers {
    let mut exact: Vec<(GroupResource, Vec<Link>)> = Vec::new();
    let mut routes = ResourceRoutes::default();
    for entry in &config.resources {
        let chain = links(&entry.providers, kms);
        let shared = Arc::new(Chain::new(chain.clone()));
        for gr in &entry.resources {
            if gr.resource == "*" {
                routes.add(gr, Arc::clone(&shared));
            } else if let Some((_, more)) = exact.iter_mut().find(|(g, _)| g == gr) {
                more.extend(chain.iter().cloned());
            } else {
                exact.push((gr.clone(), chain.clone()));
            }
        }
    }
    for (gr, chain) in exact {
        routes.add(&gr, Arc::new(Chain::new(chain)));
    }
    Transformers::identity().with_resources(routes)
}
