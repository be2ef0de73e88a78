//! The `cloud` pack (cloud CLIs deleting buckets, instances, databases, projects), the `iac`
//! pack (Terraform, OpenTofu, Pulumi, CDK destroying or applying unreviewed changes) and the
//! `disks` pack (formatting, wiping and overwriting block devices, destroying pools and volumes).

use policy_common::shell::Call;

use super::{Flags, Hit, block_device, hit};

/// The AWS CLI's global options that take a value.
const AWS_GLOBAL_WITH_VALUE: &[&str] = &[
    "--profile",
    "--region",
    "--output",
    "--endpoint-url",
    "--query",
    "--color",
    "--ca-bundle",
    "--cli-read-timeout",
    "--cli-connect-timeout",
    "--cli-binary-format",
];

/// The `cloud` pack.
pub fn cloud(call: &Call) -> Option<Hit> {
    let program = call.program;
    let operands: Vec<&str> = call
        .args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let has = |flag: &str| {
        call.args
            .iter()
            .any(|a| a == flag || a.starts_with(&format!("{flag}=")))
    };
    match program {
        "aws" => {
            // Global options may come first (`aws --profile prod ec2 terminate-instances`):
            // their values are not the service.
            let flags = Flags::parse(call.args, AWS_GLOBAL_WITH_VALUE);
            let (service, operation) = (
                *flags.operands.first()?,
                flags.operands.get(1).copied().unwrap_or_default(),
            );
            match (service, operation) {
                ("s3", "rm") if has("--recursive") => hit(
                    "bucket-delete",
                    "aws s3 rm --recursive deletes every object under the prefix",
                ),
                ("s3", "rb") => hit("bucket-delete", "aws s3 rb deletes a bucket"),
                ("s3", "sync") if has("--delete") => hit(
                    "bucket-delete",
                    "aws s3 sync --delete deletes what the source lacks",
                ),
                (_, op)
                    if [
                        "delete-",
                        "terminate-",
                        "deregister-",
                        "purge-",
                        "remove-",
                        "batch-delete-",
                    ]
                    .iter()
                    .any(|p| op.starts_with(p)) =>
                {
                    hit(
                        "resource-delete",
                        format!("aws {service} {op} deletes cloud resources"),
                    )
                }
                _ => None,
            }
        }
        "gcloud" => {
            let verb = operands
                .iter()
                .find(|o| matches!(**o, "delete" | "purge"))?;
            hit(
                "resource-delete",
                format!("gcloud ... {verb} deletes cloud resources"),
            )
        }
        "gsutil" | "gcloud-storage" => {
            let verb = operands.first()?;
            let recursive = call
                .args
                .iter()
                .any(|a| a == "-r" || a == "-R" || a == "-a");
            match *verb {
                "rm" if recursive => hit(
                    "bucket-delete",
                    "gsutil rm -r deletes every object under the prefix",
                ),
                "rb" => hit("bucket-delete", "gsutil rb deletes a bucket"),
                _ => None,
            }
        }
        "az" => {
            let verb = operands
                .iter()
                .find(|o| matches!(**o, "delete" | "purge"))?;
            hit(
                "resource-delete",
                format!("az ... {verb} deletes cloud resources"),
            )
        }
        "doctl" | "eksctl" | "linode-cli" | "hcloud" | "vultr-cli" | "scw" | "oci" | "ibmcloud" => {
            let verb = operands
                .iter()
                .find(|o| matches!(**o, "delete" | "rm" | "destroy" | "terminate"))?;
            hit(
                "resource-delete",
                format!("{program} {verb} deletes cloud resources"),
            )
        }
        "heroku" | "fly" | "flyctl" => {
            let verb = operands
                .iter()
                .find(|o| o.ends_with("destroy") || o.ends_with(":destroy"))?;
            hit(
                "resource-delete",
                format!("{program} {verb} deletes an app"),
            )
        }
        _ => None,
    }
}

/// The `iac` pack.
pub fn iac(call: &Call) -> Option<Hit> {
    let program = call.program;
    let flags = Flags::parse(
        call.args,
        &[
            "-chdir",
            "-var",
            "-var-file",
            "-target",
            "-state",
            "-out",
            "-lock-timeout",
            "--stack",
            "-s",
        ],
    );
    let single = |name: &str| {
        call.args.iter().any(|a| {
            a == &format!("-{name}")
                || a == &format!("--{name}")
                || a.starts_with(&format!("-{name}="))
        })
    };
    let verb = flags.operands.first().copied().unwrap_or_default();
    match program {
        "terraform" | "tofu" | "terragrunt" | "terraform-cdk" => match verb {
            "destroy" => hit(
                "destroy",
                format!("{program} destroy deletes the managed infrastructure"),
            ),
            "apply" if single("destroy") => hit(
                "destroy",
                format!("{program} apply -destroy deletes the managed infrastructure"),
            ),
            // A saved plan was reviewed when it was made; -auto-approve on it changes nothing.
            "apply" if single("auto-approve") && flags.operands.len() < 2 => hit(
                "unreviewed-apply",
                format!("{program} apply -auto-approve changes infrastructure without review"),
            ),
            "state" if matches!(flags.operands.get(1), Some(&"rm") | Some(&"push")) => hit(
                "state-edit",
                format!(
                    "{program} state {} rewrites what it manages",
                    flags.operands[1]
                ),
            ),
            "workspace" if flags.operands.get(1) == Some(&"delete") => hit(
                "destroy",
                format!("{program} workspace delete drops a workspace's state"),
            ),
            _ => None,
        },
        "pulumi" => match verb {
            "destroy" => hit("destroy", "pulumi destroy deletes the stack's resources"),
            "up" | "update"
                if flags.short('y') || flags.long("yes") || flags.long("skip-preview") =>
            {
                hit(
                    "unreviewed-apply",
                    "pulumi up --yes changes infrastructure without review",
                )
            }
            "stack" if flags.operands.get(1) == Some(&"rm") => {
                hit("destroy", "pulumi stack rm deletes a stack")
            }
            _ => None,
        },
        "cdk" | "cdktf" | "serverless" | "sls" | "sst" => matches!(verb, "destroy" | "remove")
            .then(|| Hit {
                rule: "destroy",
                what: format!("{program} {verb} deletes the deployed stack"),
            }),
        _ => None,
    }
}

/// The `disks` pack.
pub fn disks(call: &Call) -> Option<Hit> {
    let program = call.program;
    let device = || {
        call.args
            .iter()
            .find(|a| block_device(a) || a.starts_with("/dev/disk"))
            .cloned()
    };
    match program {
        "dd" => {
            let target = call.args.iter().find_map(|a| a.strip_prefix("of="))?;
            block_device(target).then(|| Hit {
                rule: "device-write",
                what: format!("dd writes onto the device {target}"),
            })
        }
        p if p.starts_with("mkfs")
            || matches!(p, "mke2fs" | "mkswap" | "mkdosfs" | "mkntfs" | "newfs") =>
        {
            let target = device()?;
            hit("format", format!("{p} formats {target}"))
        }
        "wipefs" | "blkdiscard" | "sfdisk" | "cfdisk" | "gdisk" | "sgdisk" | "fdisk" | "parted"
        | "shred" | "badblocks" => {
            let target = device()?;
            let reads_only = call.args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "-l" | "--list" | "print" | "-p" | "--print" | "-n" | "--no-act" | "-s"
                )
            });
            if reads_only
                && program != "shred"
                && !(program == "badblocks" && call.args.iter().any(|a| a == "-w"))
            {
                return None;
            }
            if program == "badblocks" && !call.args.iter().any(|a| a == "-w") {
                return None;
            }
            hit("wipe", format!("{program} rewrites {target}"))
        }
        "hdparm"
            if call
                .args
                .iter()
                .any(|a| a.starts_with("--security-erase") || a == "--trim-sector-ranges") =>
        {
            hit("wipe", "hdparm --security-erase wipes a disk")
        }
        "cryptsetup"
            if call.args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "luksFormat" | "erase" | "luksErase" | "reencrypt"
                )
            }) =>
        {
            hit(
                "wipe",
                "cryptsetup luksFormat destroys what the device held",
            )
        }
        "zpool"
            if call
                .args
                .iter()
                .any(|a| matches!(a.as_str(), "destroy" | "labelclear")) =>
        {
            hit("volume-destroy", "zpool destroy deletes a pool")
        }
        "zfs" if call.args.iter().any(|a| a == "destroy") => {
            hit("volume-destroy", "zfs destroy deletes datasets")
        }
        "lvremove" | "vgremove" | "pvremove" => hit(
            "volume-destroy",
            format!("{program} deletes a logical volume"),
        ),
        "mdadm" if call.args.iter().any(|a| a == "--zero-superblock") => {
            hit("wipe", "mdadm --zero-superblock wipes RAID metadata")
        }
        "diskutil"
            if call.args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "eraseDisk"
                        | "eraseVolume"
                        | "zeroDisk"
                        | "randomDisk"
                        | "secureErase"
                        | "partitionDisk"
                        | "reformat"
                )
            }) =>
        {
            hit("format", "diskutil erases a disk")
        }
        "format" if call.args.iter().any(|a| a.len() == 2 && a.ends_with(':')) => {
            hit("format", "format erases a drive")
        }
        _ => None,
    }
}
