//! The CNCF Wasm OCI artifact layout (TAG Runtime's "wasm-oci-artifact"), which wkg, Spin,
//! wasmCloud and Kubewarden read: an OCI image manifest whose config has media type
//! `application/vnd.wasm.config.v0+json` and whose only layer is the component, media type
//! `application/wasm`. A hookhost bundle is that, with the bundle file as the layer, so any of
//! those tools (and `skopeo`, `oras`, `crane`) can copy and inspect it.

use std::collections::BTreeMap;

use oci_client::manifest::{OciDescriptor, OciImageManifest, OciManifest};
use serde::{Deserialize, Serialize};

use crate::source::reference::Digest;

/// The manifest's media type.
pub const MANIFEST_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// The config's media type.
pub const CONFIG_MEDIA_TYPE: &str = "application/vnd.wasm.config.v0+json";
/// The layer's media type.
pub const LAYER_MEDIA_TYPE: &str = "application/wasm";

/// Standard annotation keys (OCI image spec, "Pre-Defined Annotation Keys").
pub mod annotations {
    /// When the bundle was pushed (RFC 3339).
    pub const CREATED: &str = "org.opencontainers.image.created";
    /// The bundle's name (its metadata's, else the file's).
    pub const TITLE: &str = "org.opencontainers.image.title";
    /// The bundle's version, from its metadata.
    pub const VERSION: &str = "org.opencontainers.image.version";
    /// What the bundle does, from its metadata.
    pub const DESCRIPTION: &str = "org.opencontainers.image.description";
}

/// The config blob: what the spec requires of a component (`os` `wasip2` and its imports and
/// exports), so registries and tools can show what a bundle needs without downloading it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WasmConfig {
    /// RFC 3339.
    pub created: String,
    /// Always `wasm`.
    pub architecture: String,
    /// `wasip2` for components.
    pub os: String,
    /// The layers' digests, in manifest order.
    pub layer_digests: Vec<String>,
    /// The component's top-level imports and exports.
    pub component: ComponentWorld,
}

/// A component's top-level imports and exports.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ComponentWorld {
    /// Exported names, like `hookhost:hooks/handler@0.2.0`.
    pub exports: Vec<String>,
    /// Imported names, like `wasi:cli/environment@0.2.0`.
    pub imports: Vec<String>,
    /// The world it targets, when it is a hookhost hook: `hookhost:hooks/hook@0.2.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// Reads a component's top-level imports and exports; `None` when `bytes` is not a component.
pub fn component_world(bytes: &[u8]) -> Option<ComponentWorld> {
    use wasmparser::{Parser, Payload};
    if !Parser::is_component(bytes) {
        return None;
    }
    let mut world = ComponentWorld::default();
    // Nested modules and components have sections of their own; only depth 0 is the world.
    let mut depth = 0usize;
    for payload in Parser::new(0).parse_all(bytes) {
        match payload.ok()? {
            Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => depth += 1,
            Payload::End(_) => depth = depth.saturating_sub(1),
            Payload::ComponentImportSection(reader) if depth == 0 => {
                for import in reader {
                    world.imports.push(import.ok()?.name.name.to_string());
                }
            }
            Payload::ComponentExportSection(reader) if depth == 0 => {
                for export in reader {
                    world.exports.push(export.ok()?.name.name.to_string());
                }
            }
            _ => {}
        }
    }
    world.target = world.exports.iter().find_map(|name| {
        let version = name.strip_prefix("hookhost:hooks/handler@")?;
        Some(format!("hookhost:hooks/hook@{version}"))
    });
    Some(world)
}

/// The blobs and manifest of a bundle, ready to push.
pub(super) struct Artifact {
    pub(super) config: Vec<u8>,
    pub(super) manifest: Vec<u8>,
    pub(super) manifest_digest: Digest,
    pub(super) wasm_digest: Digest,
}

/// Lays out `bytes` (a component) as a Wasm OCI artifact. `annotations` go on the manifest;
/// the layer is titled `file_name` (what `oras pull` names the file it writes).
pub(super) fn build(
    bytes: &[u8],
    world: ComponentWorld,
    file_name: &str,
    annotations: BTreeMap<String, String>,
    created: String,
) -> Artifact {
    let wasm_digest = Digest::of(bytes);
    let config = WasmConfig {
        created,
        architecture: "wasm".to_string(),
        os: "wasip2".to_string(),
        layer_digests: vec![wasm_digest.to_string()],
        component: world,
    };
    let config = serde_json::to_vec(&config).expect("the config serializes");
    let manifest = OciImageManifest {
        schema_version: 2,
        media_type: Some(MANIFEST_MEDIA_TYPE.to_string()),
        config: OciDescriptor {
            media_type: CONFIG_MEDIA_TYPE.to_string(),
            digest: Digest::of(&config).to_string(),
            size: config.len() as i64,
            ..Default::default()
        },
        layers: vec![OciDescriptor {
            media_type: LAYER_MEDIA_TYPE.to_string(),
            digest: wasm_digest.to_string(),
            size: bytes.len() as i64,
            annotations: Some(BTreeMap::from([(
                annotations::TITLE.to_string(),
                file_name.to_string(),
            )])),
            ..Default::default()
        }],
        annotations: (!annotations.is_empty()).then_some(annotations),
        ..Default::default()
    };
    // These exact bytes are pushed, so their digest is the manifest's.
    let manifest = serde_json::to_vec(&manifest).expect("the manifest serializes");
    Artifact {
        manifest_digest: Digest::of(&manifest),
        config,
        manifest,
        wasm_digest,
    }
}

/// The wasm layer of a bundle's manifest, or why the manifest is not a bundle's.
pub(super) fn wasm_layer(manifest: &OciManifest) -> Result<(Digest, u64), String> {
    let manifest = match manifest {
        OciManifest::Image(manifest) => manifest,
        OciManifest::ImageIndex(_) => {
            return Err(
                "it is an image index (a list of platform images), not a single \
                        manifest; a bundle is one manifest with one application/wasm layer"
                    .to_string(),
            );
        }
    };
    if manifest.config.media_type != CONFIG_MEDIA_TYPE {
        return Err(format!(
            "its config media type is {}, not {CONFIG_MEDIA_TYPE} (is it a container image? \
             publish bundles with `hookhost push`)",
            manifest.config.media_type
        ));
    }
    let [layer] = manifest.layers.as_slice() else {
        return Err(format!(
            "it has {} layers; a bundle has exactly one {LAYER_MEDIA_TYPE} layer",
            manifest.layers.len()
        ));
    };
    if layer.media_type != LAYER_MEDIA_TYPE {
        return Err(format!(
            "its layer has media type {}, not {LAYER_MEDIA_TYPE}",
            layer.media_type
        ));
    }
    let digest = layer
        .digest
        .parse::<Digest>()
        .map_err(|reason| format!("its layer's digest is unusable: {reason}"))?;
    let size = u64::try_from(layer.size)
        .map_err(|_| format!("its layer has a negative size ({})", layer.size))?;
    Ok((digest, size))
}

/// Why a layer's first bytes are not a component's, if they are not.
pub(super) fn not_a_component(head: &[u8]) -> Option<String> {
    match head {
        [0x00, b'a', b's', b'm', 0x0d, 0x00, 0x01, 0x00] => None,
        [0x00, b'a', b's', b'm', 0x01, 0x00, 0x00, 0x00] => Some(
            "its wasm layer is a core WebAssembly module, not a component (build hooks for \
             wasm32-wasip2, or wrap a hook built without WASI with `wasm-tools component new` \
             before signing and pushing it)"
                .to_string(),
        ),
        _ => Some("its wasm layer is not a WebAssembly component".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(config: &str, layers: &[&str]) -> OciManifest {
        let digest = Digest::of(b"x").to_string();
        OciManifest::Image(OciImageManifest {
            config: OciDescriptor {
                media_type: config.to_string(),
                digest: digest.clone(),
                ..Default::default()
            },
            layers: layers
                .iter()
                .map(|media_type| OciDescriptor {
                    media_type: media_type.to_string(),
                    digest: digest.clone(),
                    size: 1,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        })
    }

    #[test]
    fn only_a_wasm_config_with_one_wasm_layer_is_a_bundle() {
        let tar = "application/vnd.oci.image.layer.v1.tar+gzip";
        let image_config = "application/vnd.oci.image.config.v1+json";
        #[rustfmt::skip]
        let cases: &[(&str, OciManifest, Option<&str>)] = &[
            ("bundle",        image(CONFIG_MEDIA_TYPE, &[LAYER_MEDIA_TYPE]), None),
            ("container",     image(image_config, &[tar]),                   Some("its config media type is application/vnd.oci.image.config.v1+json, not application/vnd.wasm.config.v0+json")),
            ("two layers",    image(CONFIG_MEDIA_TYPE, &[LAYER_MEDIA_TYPE, LAYER_MEDIA_TYPE]), Some("it has 2 layers; a bundle has exactly one application/wasm layer")),
            ("no layer",      image(CONFIG_MEDIA_TYPE, &[]),                 Some("it has 0 layers")),
            ("tar layer",     image(CONFIG_MEDIA_TYPE, &[tar]),              Some("its layer has media type application/vnd.oci.image.layer.v1.tar+gzip, not application/wasm")),
        ];
        for (name, manifest, expected) in cases {
            match (wasm_layer(manifest), expected) {
                (Ok((_, 1)), None) => {}
                (Err(reason), Some(expected)) => {
                    assert!(reason.contains(expected), "{name}: {reason}")
                }
                (other, _) => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn layer_headers_tell_components_from_modules() {
        assert_eq!(not_a_component(b"\0asm\x0d\0\x01\0"), None);
        assert!(
            not_a_component(b"\0asm\x01\0\0\0")
                .unwrap()
                .contains("core WebAssembly module")
        );
        assert!(
            not_a_component(b"{\"json\"")
                .unwrap()
                .contains("not a WebAssembly component")
        );
    }

    #[test]
    fn a_component_world_lists_top_level_names_only() {
        let component = wat::parse_str(
            r#"(component
                 (import "wasi:cli/environment@0.2.0" (instance))
                 (core module $m (func (export "inner")))
                 (component $c (import "nested" (func)))
                 (instance $i)
                 (export "hookhost:hooks/handler@0.1.0" (instance $i)))"#,
        )
        .unwrap();
        let world = component_world(&component).unwrap();
        assert_eq!(world.imports, ["wasi:cli/environment@0.2.0"]);
        assert_eq!(world.exports, ["hookhost:hooks/handler@0.1.0"]);
        assert_eq!(world.target.as_deref(), Some("hookhost:hooks/hook@0.1.0"));
        assert_eq!(component_world(&wat::parse_str("(module)").unwrap()), None);
    }
}
