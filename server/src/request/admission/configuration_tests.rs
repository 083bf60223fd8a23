//! AdmissionConfiguration files: accepted shapes and one-line refusals.

use super::*;

fn load(text: &str, extra: &[(&str, &str)]) -> Result<AdmissionSettings, String> {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, body) in extra {
        std::fs::write(dir.path().join(name), body).expect("write");
    }
    let path = dir.path().join("admission.yaml");
    let text = text.replace("$DIR", &dir.path().display().to_string());
    std::fs::write(&path, text).expect("write");
    let flags = AdmissionFlags {
        admission_control_config_file: Some(path),
        ..AdmissionFlags::default()
    };
    AdmissionSettings::load(&flags, "k8s.io")
}

const KUBECONFIG: &str = "clusters: []\nusers: []\n";

#[test]
fn inline_configuration_wins_over_path() {
    let text = "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n\
- name: ValidatingAdmissionWebhook\n  path: missing.yaml\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: $DIR/kc.yaml\n";
    let settings = load(text, &[("kc.yaml", KUBECONFIG)]).expect("valid");
    assert!(
        settings.webhook_kubeconfigs[VALIDATING_WEBHOOK]
            .path
            .ends_with("kc.yaml")
    );
}

#[test]
fn path_is_relative_to_the_file() {
    let text = "apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: AdmissionConfiguration\nplugins:\n\
- name: MutatingAdmissionWebhook\n  path: hook.yaml\n- name: LimitRanger\n";
    let hook = "apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: WebhookAdmission\nkubeConfigFile: /dev/null\n";
    let settings = load(text, &[("hook.yaml", hook)]).expect("valid");
    assert!(settings.webhook_kubeconfigs.contains_key(MUTATING_WEBHOOK));
}

#[test]
fn refusals_name_the_field() {
    let head = "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n";
    let e = load(&format!("{head}plugins:\n- name: Bogus\n"), &[]).unwrap_err();
    assert!(
        e.ends_with(
            "plugins[0].name: Unsupported value: \"Bogus\": not a registered admission plugin"
        ),
        "{e}"
    );
    let e = load(&format!("{head}plugins:\n- path: x\n"), &[]).unwrap_err();
    assert!(e.ends_with("plugins[0].name: Required value"), "{e}");
    let relative = format!(
        "{head}plugins:\n- name: ValidatingAdmissionWebhook\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: kc.yaml\n"
    );
    assert_eq!(
        load(&relative, &[]).unwrap_err(),
        "failed to initialize admission: couldn't init admission plugin \"ValidatingAdmissionWebhook\": kubeConfigFile: Invalid value: \"kc.yaml\": must be an absolute file path"
    );
    let e = load(
        "apiVersion: apiserver.config.k8s.io/v2\nkind: AdmissionConfiguration\n",
        &[],
    )
    .unwrap_err();
    assert!(e.ends_with("no kind \"AdmissionConfiguration\" is registered for version \"apiserver.config.k8s.io/v2\""), "{e}");
    let e = load(
        &format!("{head}plugins:\n- name: MutatingAdmissionWebhook\n  path: gone.yaml\n"),
        &[],
    )
    .unwrap_err();
    assert!(
        e.contains("plugins[0].path: unable to read plugin configuration"),
        "{e}"
    );
}
