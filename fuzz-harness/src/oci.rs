//! What the registry client reads from a registry (`oci::registry`): a `.sig` tag's manifest and
//! its signature layers, a referrers listing (the API's index, or the tag schema's), a Sigstore
//! bundle's manifest, a bundle's manifest and the head of its wasm layer; and the references
//! and digests a hooks.toml and a registry name (`OciReference`, `Digest`).
//!
//! Input: `[0, json...]` (the seeds: real manifests, indexes and referrers listings), or
//! `[1, arbitrary...]`: a JSON tree with the OCI keys, or a reference.
//!
//! Properties: no panic; every digest read is a SHA-256 that prints back as it was read; a
//! reference that parses prints a canonical form that parses to the same reference.

use arbitrary::{Result, Unstructured};
use hookhost::oci::{Digest, OciReference};
use serde_json::Value;

use crate::json::{self, Words};

const KEYS: &[&str] = &[
    "schemaVersion",
    "mediaType",
    "artifactType",
    "config",
    "layers",
    "manifests",
    "subject",
    "digest",
    "size",
    "annotations",
    "urls",
    "platform",
    "architecture",
    "os",
    "dev.cosignproject.cosign/signature",
    "dev.sigstore.cosign/certificate",
    "dev.sigstore.cosign/chain",
    "dev.sigstore.cosign/bundle",
    "org.opencontainers.image.title",
];

const STRINGS: &[&str] = &[
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
    "application/vnd.wasm.config.v0+json",
    "application/wasm",
    "application/vnd.dev.cosign.simplesigning.v1+json",
    "application/vnd.dev.cosign.artifact.sig.v1+json",
    "application/vnd.dev.sigstore.bundle.v0.3+json",
    "application/vnd.dev.sigstore.bundle+json;version=0.2",
    "application/vnd.oci.empty.v1+json",
    "application/vnd.oci.image.config.v1+json",
    "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "sha512:00",
    "sha256:",
    "MEUCIQ",
    "",
];

fn words() -> Words {
    Words {
        keys: KEYS,
        strings: STRINGS,
    }
}

/// One execution.
pub fn fuzz(data: &[u8]) {
    let (mode, rest) = crate::split_mode(data);
    let _ = match mode % 2 {
        0 => {
            run(rest);
            Ok(())
        }
        _ => structured(rest),
    };
}

fn structured(rest: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(rest);
    if u.ratio(1, 4)? {
        let reference: String = u.arbitrary()?;
        let reference = match u.int_in_range(0..=2)? {
            0 => reference,
            1 => format!("oci://{reference}"),
            _ => format!("oci://registry.example/{reference}"),
        };
        references(&reference);
        return Ok(());
    }
    let mut object = json::object(&mut u, words(), 3)?;
    if u.ratio(3, 4)? {
        let len = u.int_in_range(0..=3)?;
        let mut layers = Vec::new();
        for _ in 0..len {
            let mut layer = json::object(&mut u, words(), 1)?;
            for key in ["mediaType", "digest"] {
                layer.insert(key.into(), Value::String(json::string(&mut u, words())?));
            }
            layer.insert("size".into(), Value::from(u.arbitrary::<i64>()?));
            layers.push(Value::Object(layer));
        }
        let key = if u.arbitrary()? {
            "layers"
        } else {
            "manifests"
        };
        object.insert(key.into(), Value::Array(layers));
    }
    run(Value::Object(object).to_string().as_bytes());
    Ok(())
}

/// `bytes` read as each thing a registry answers.
pub fn run(bytes: &[u8]) {
    for digests in hookhost::oci::registry::fuzz_listing(bytes)
        .into_iter()
        .flatten()
    {
        for digest in digests {
            let text = digest.to_string();
            assert!(text.starts_with("sha256:"), "{text}");
            assert_eq!(text.parse::<Digest>().as_ref(), Ok(&digest));
        }
    }
    if let Some(text) = crate::text(bytes) {
        references(text);
    }
}

/// `text` as a reference and as a digest: what parses prints back and parses the same.
fn references(text: &str) {
    if let Ok(reference) = OciReference::parse(text) {
        let canonical = reference.to_string();
        let again = OciReference::parse(&canonical)
            .unwrap_or_else(|e| panic!("{canonical} (from {text:?}) does not parse: {e}"));
        assert_eq!(again, reference, "{canonical} (from {text:?})");
        assert_eq!(again.to_string(), canonical);
    }
    if let Ok(digest) = text.parse::<Digest>() {
        assert_eq!(digest.to_string().parse::<Digest>().as_ref(), Ok(&digest));
    }
}
