//! Leader election of the singleton controllers among API servers that
//! share one etcd: kube-controller-manager's flag names and defaults.

use std::time::Duration;

use clap::Args;

use crate::util::duration;

/// client-go's jitter on the retry period: the renew deadline must leave
/// room for one jittered retry.
const JITTER_FACTOR: f64 = 1.2;

#[derive(Args, Debug, Clone)]
pub struct LeaderElectionFlags {
    /// With `--etcd-servers`: run the singleton controllers (namespace
    /// finalization, garbage collection, service accounts, RBAC aggregation,
    /// certificate approval and signing, compaction) only on the server that
    /// holds the leader Lease. The embedded store has one server, which
    /// always runs them.
    #[arg(long, default_value_t = true, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub leader_elect: bool,
    /// How long a Lease holds after its last renewal before another server
    /// may take it.
    #[arg(long, default_value = "15s", value_parser = duration::parse)]
    pub leader_elect_lease_duration: Duration,
    /// How long the leader keeps trying to renew before it stops leading.
    #[arg(long, default_value = "10s", value_parser = duration::parse)]
    pub leader_elect_renew_deadline: Duration,
    /// How long a server waits between attempts to acquire or renew.
    #[arg(long, default_value = "2s", value_parser = duration::parse)]
    pub leader_elect_retry_period: Duration,
    /// The name of the Lease the servers compete for.
    #[arg(long, default_value = "cairn-controllers")]
    pub leader_elect_resource_name: String,
    /// The namespace of that Lease.
    #[arg(long, default_value = "kube-system")]
    pub leader_elect_resource_namespace: String,
}

impl LeaderElectionFlags {
    /// The timings client-go's leader elector accepts, else the line that
    /// names the flag.
    pub fn check(&self) -> Result<(), String> {
        let (lease, renew, retry) = (
            self.leader_elect_lease_duration,
            self.leader_elect_renew_deadline,
            self.leader_elect_retry_period,
        );
        if retry.is_zero() {
            return Err("--leader-elect-retry-period: must be greater than zero".into());
        }
        if lease <= renew {
            return Err(format!(
                "--leader-elect-lease-duration: must be greater than --leader-elect-renew-deadline ({lease:?} <= {renew:?})"
            ));
        }
        if renew.as_secs_f64() <= JITTER_FACTOR * retry.as_secs_f64() {
            return Err(format!(
                "--leader-elect-renew-deadline: must be greater than {JITTER_FACTOR} × --leader-elect-retry-period ({renew:?} <= {JITTER_FACTOR} × {retry:?})"
            ));
        }
        if self.leader_elect_resource_name.is_empty() {
            return Err("--leader-elect-resource-name: must not be empty".into());
        }
        if self.leader_elect_resource_namespace.is_empty() {
            return Err("--leader-elect-resource-namespace: must not be empty".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(lease: u64, renew: u64, retry: u64) -> LeaderElectionFlags {
        LeaderElectionFlags {
            leader_elect: true,
            leader_elect_lease_duration: Duration::from_secs(lease),
            leader_elect_renew_deadline: Duration::from_secs(renew),
            leader_elect_retry_period: Duration::from_secs(retry),
            leader_elect_resource_name: "cairn-controllers".into(),
            leader_elect_resource_namespace: "kube-system".into(),
        }
    }

    #[test]
    fn kube_controller_manager_defaults_pass() {
        assert_eq!(flags(15, 10, 2).check(), Ok(()));
    }

    #[test]
    fn timings_out_of_order_name_the_flag() {
        let lease = flags(10, 10, 2).check().unwrap_err();
        assert!(
            lease.starts_with("--leader-elect-lease-duration:"),
            "{lease}"
        );
        let renew = flags(15, 2, 2).check().unwrap_err();
        assert!(
            renew.starts_with("--leader-elect-renew-deadline:"),
            "{renew}"
        );
        let retry = flags(15, 10, 0).check().unwrap_err();
        assert!(retry.starts_with("--leader-elect-retry-period:"), "{retry}");
    }
}
