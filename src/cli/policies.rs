//! `hookhost policies`: the catalogue of policies built into hookhost (`policy = "NAME"` in
//! hooks.toml): list them, show one's README (what it blocks, its options, examples, what it
//! cannot see), or publish one to an OCI registry as a bundle, with the push code of `hookhost
//! push` (and its cosign signing).

use std::process::ExitCode;

use anyhow::{Context as _, Result, anyhow};
use hookhost::catalogue::{POLICIES, Policy};

use super::oci::{NetworkArgs, PushArgs};

#[derive(clap::Args)]
pub struct PoliciesArgs {
    #[command(subcommand)]
    command: Option<PoliciesCommand>,
}

#[derive(clap::Subcommand)]
enum PoliciesCommand {
    /// List the policies (the default)
    List,
    /// Print a policy's README: what it blocks, its options, examples, what it cannot see
    Show {
        /// The policy
        name: String,
    },
    /// Push a policy to an OCI registry as a bundle (signed by hookhost's catalogue key;
    /// --sign adds your cosign signature), for a team that pins its own copy
    Publish(PublishArgs),
}

#[derive(clap::Args)]
struct PublishArgs {
    /// The policy
    name: String,
    /// Where: REGISTRY/REPOSITORY:TAG, with or without oci://
    reference: String,
    /// An annotation for the manifest, KEY=VALUE; repeatable
    #[arg(long = "annotation", short = 'a', value_name = "KEY=VALUE")]
    annotations: Vec<String>,
    /// Sign the pushed manifest with this cosign key
    #[arg(long, value_name = "KEY")]
    sign: Option<std::path::PathBuf>,
    /// The --sign key's password, from this environment variable
    #[arg(long, value_name = "VAR", requires = "sign")]
    password_env: Option<String>,
    /// Speak plain HTTP to the registry (see `hookhost push --help`)
    #[arg(long)]
    plain_http: bool,
}

pub async fn run(args: PoliciesArgs) -> Result<ExitCode> {
    match args.command.unwrap_or(PoliciesCommand::List) {
        PoliciesCommand::List => {
            for policy in POLICIES {
                let entry = policy.entry();
                println!("{:<18} {:<7} {}", policy.name, entry.version, entry.summary);
            }
            println!(
                "\nUse one in hooks.toml with `policy = \"NAME\"` and its options in \
                 [hooks.config]; `hookhost policies show NAME` describes them."
            );
        }
        PoliciesCommand::Show { name } => {
            let policy = Policy::named(&name).map_err(|message| anyhow!(message))?;
            let entry = policy.entry();
            println!(
                "{} {} (sha256 {}; options: {})\n",
                policy.name,
                entry.version,
                entry.sha256,
                policy.options.join(", ")
            );
            print!("{}", policy.readme);
        }
        PoliciesCommand::Publish(publish) => {
            let bytes =
                hookhost::verified_component(&publish.name).map_err(|message| anyhow!(message))?;
            let dir = tempfile::tempdir().context("cannot make a temporary directory")?;
            let file = dir.path().join(format!("{}.wasm", publish.name));
            std::fs::write(&file, bytes)
                .with_context(|| format!("cannot write {}", file.display()))?;
            return super::oci::push(PushArgs {
                file,
                reference: publish.reference,
                annotations: publish.annotations,
                sign: publish.sign,
                password_env: publish.password_env,
                network: NetworkArgs {
                    plain_http: publish.plain_http,
                },
            })
            .await;
        }
    }
    Ok(ExitCode::SUCCESS)
}
