//! Regression (fuzzing, `cosign`: fuzz/corpus/cosign/regression-oci-scheme-in-payload): a
//! payload made for a reference spelt with hookhost's `oci://` scheme named `oci://…` as its
//! docker-reference, which [`verify`] (dropping the scheme from the repository it checks)
//! then refused for that very reference. The payload names what cosign writes, and verifies
//! for the reference it was made for, however that is spelt.

use super::{CosignPrivateKey, claims, payload, sign, verify};
use crate::source::reference::Digest;

const REPOSITORY: &str = "registry.example:5000/team/guard";

#[test]
fn a_payload_made_for_an_oci_reference_verifies_for_it() {
    let manifest = Digest::of(b"manifest");
    let key = CosignPrivateKey::generate();
    let public = key.public_key();
    #[rustfmt::skip]
    let cases: [(&str, String); 4] = [
        ("the scheme", format!("oci://{REPOSITORY}")),
        ("the scheme and a tag", format!("oci://{REPOSITORY}:1.0")),
        ("no scheme", REPOSITORY.to_string()),
        ("an odd name, as the fuzzer wrote it", "oci://ti\"cr\u{1}\0\0".to_string()),
    ];
    for (name, reference) in cases {
        let docker_reference = reference.strip_prefix("oci://").unwrap_or(&reference);
        assert_eq!(
            claims(&payload(&reference, &manifest)),
            Ok((docker_reference.to_string(), manifest.to_string())),
            "{name}: the payload names what cosign writes"
        );
        let signature = sign(&key, &reference, &manifest);
        for verified_for in [reference.as_str(), docker_reference] {
            assert_eq!(
                verify(&public, &signature, &manifest, verified_for),
                Ok(()),
                "{name}: signed for {reference:?}, verified for {verified_for:?}"
            );
        }
    }
}
