//! What kube-apiserver allocates for Services: cluster IPs from
//! `--service-cluster-ip-range`, node ports from `--service-node-port-range`,
//! as a strategy around the Service rules of `service_strategy`.

pub mod allocator;
pub mod families;
pub mod fill;
pub mod pool;
pub mod update_rules;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use serde_json::Value;

use self::allocator::ServiceAllocator;
use super::service_strategy::ServiceStrategy;
use crate::api::error::{ApiError, Cause};
use crate::api::kind::{Claim, NameRule, Strategy};
use crate::config::Config;

/// The Service strategy with allocation.
pub struct AllocatingServiceStrategy {
    pub allocator: Arc<ServiceAllocator>,
}

impl AllocatingServiceStrategy {
    #[must_use]
    pub fn from_config(config: &Config) -> AllocatingServiceStrategy {
        let ranges = &config.service_ranges;
        AllocatingServiceStrategy {
            allocator: Arc::new(ServiceAllocator::new(
                &ranges.cluster_ip_range.0,
                ranges.node_port_range,
            )),
        }
    }
}

impl Strategy for AllocatingServiceStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        ServiceStrategy.prepare_for_create(obj);
        update_rules::normalize_cluster_ips(obj, None);
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        ServiceStrategy.prepare_for_update(new, old);
        update_rules::carry_allocated(new, old);
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        ServiceStrategy.validate(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<Cause> {
        let mut causes = update_rules::validate_cluster_ips(new, old);
        causes.extend(ServiceStrategy.validate_update(new, old));
        causes
    }

    fn name_rule(&self) -> NameRule {
        ServiceStrategy.name_rule()
    }

    fn claim(
        &self,
        obj: &mut Value,
        old: Option<&Value>,
    ) -> Result<Option<Box<dyn Claim>>, ApiError> {
        // Status and metadata writes allocate nothing, as in kube (a
        // Service stored without addresses keeps none).
        if old.is_some_and(|old| old.get("spec") == obj.get("spec")) {
            return Ok(None);
        }
        let before = old.map(fill::held).unwrap_or_default();
        let claim = fill::fill(&self.allocator, obj, &before)?;
        Ok((!claim.is_empty()).then(|| Box::new(claim) as Box<dyn Claim>))
    }

    fn removed(&self, obj: &Value) {
        self.allocator.release(fill::held(obj));
    }

    fn recover(&self, stored: &[Value]) {
        self.allocator.recover(stored.iter().flat_map(fill::held));
    }
}
