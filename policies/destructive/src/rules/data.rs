//! The `database` pack (SQL and NoSQL that destroys data, given to a database CLI however it
//! gets there: an option, an argument, a heredoc, a here-string, a pipe), the `containers` pack
//! (prunes, removals of every container, image or volume) and the `kubernetes` pack (namespaces,
//! `--all`, volumes, CRDs, nodes, Helm releases).

use policy_common::shell::Call;

use super::{Flags, Hit, hit};

const SQL_CLIS: &[&str] = &[
    "psql",
    "mysql",
    "mariadb",
    "sqlite3",
    "sqlite",
    "mongo",
    "mongosh",
    "redis-cli",
    "clickhouse-client",
    "clickhouse",
    "cockroach",
    "sqlcmd",
    "duckdb",
    "cqlsh",
    "snowsql",
    "sqlplus",
    "valkey-cli",
    "keydb-cli",
];

/// The `database` pack.
pub fn database(call: &Call) -> Option<Hit> {
    let program = call.program;
    match program {
        "dropdb" => return hit("drop", "dropdb deletes a database"),
        "mysqladmin" if call.args.iter().any(|a| a == "drop") => {
            return hit("drop", "mysqladmin drop deletes a database");
        }
        _ => {}
    }
    if !SQL_CLIS.contains(&program) {
        return None;
    }
    let mut texts: Vec<String> = Vec::new();
    let options = [
        "-c",
        "--command",
        "-e",
        "--execute",
        "--eval",
        "--query",
        "-q",
        "-Q",
        "-i",
    ];
    let mut i = 0;
    while let Some(arg) = call.args.get(i) {
        if let Some((name, value)) = arg.split_once('=')
            && options.contains(&name)
        {
            texts.push(value.to_string());
        } else if options.contains(&arg.as_str()) {
            if let Some(value) = call.args.get(i + 1) {
                texts.push(value.clone());
            }
            i += 1;
        } else if !arg.starts_with('-') {
            texts.push(arg.clone());
        }
        i += 1;
    }
    if program.contains("redis") || program.contains("valkey") || program.contains("keydb") {
        texts.push(call.args.join(" "));
    }
    if let Some(text) = call.stdin_text() {
        texts.push(text.to_string());
    }
    for (feeder, args) in call.upstream() {
        if matches!(feeder.as_str(), "echo" | "printf" | "cat") {
            texts.push(args.join(" "));
        }
    }
    texts.iter().find_map(|text| destructive_statement(text))
}

/// The first statement of `text` that destroys data, if any: `DROP`, `TRUNCATE`, `DELETE` or
/// `UPDATE` without `WHERE`, MongoDB's `dropDatabase()`, `.drop()`, `deleteMany({})`, Redis's
/// `FLUSHALL`/`FLUSHDB`.
pub fn destructive_statement(text: &str) -> Option<Hit> {
    let upper = text.to_uppercase();
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.contains("dropDatabase(") {
        return hit("drop", "dropDatabase() deletes a database");
    }
    if compact.contains(".drop()") {
        return hit("drop", ".drop() deletes a collection");
    }
    if compact.contains("deleteMany({})") || compact.contains(".remove({})") {
        return hit("delete-all", "deleteMany({}) deletes every document");
    }
    for statement in upper.split(';') {
        let words: Vec<&str> = statement
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
            .filter(|w| !w.is_empty())
            .collect();
        let Some(first) = words.first() else { continue };
        match *first {
            "DROP" => {
                let kind = words.get(1).copied().unwrap_or_default();
                if matches!(
                    kind,
                    "TABLE"
                        | "DATABASE"
                        | "SCHEMA"
                        | "VIEW"
                        | "INDEX"
                        | "USER"
                        | "ROLE"
                        | "COLLECTION"
                        | "KEYSPACE"
                        | "MATERIALIZED"
                        | "OWNED"
                ) {
                    return hit("drop", format!("DROP {kind} deletes it and its data"));
                }
            }
            "TRUNCATE" => return hit("truncate", "TRUNCATE deletes every row"),
            "DELETE" if !words.contains(&"WHERE") => {
                return hit("delete-all", "DELETE without WHERE deletes every row");
            }
            "UPDATE" if words.contains(&"SET") && !words.contains(&"WHERE") => {
                return hit("update-all", "UPDATE without WHERE rewrites every row");
            }
            "ALTER" if words.windows(2).any(|w| w == ["DROP", "COLUMN"]) => {
                return hit(
                    "drop",
                    "ALTER TABLE ... DROP COLUMN deletes a column's data",
                );
            }
            "FLUSHALL" | "FLUSHDB" => return hit("flush", format!("{first} deletes every key")),
            _ => {}
        }
    }
    None
}

/// The `containers` pack.
pub fn containers(call: &Call) -> Option<Hit> {
    let program = call.program;
    let args: Vec<&str> = match program {
        "docker" | "podman" | "nerdctl" => call.args.iter().map(String::as_str).collect(),
        "docker-compose" | "podman-compose" => std::iter::once("compose")
            .chain(call.args.iter().map(String::as_str))
            .collect(),
        _ => return None,
    };
    let operands: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !a.starts_with('-'))
        .collect();
    let flag = |names: &[&str]| {
        args.iter().any(|a| {
            names.contains(a)
                || (a.starts_with('-')
                    && !a.starts_with("--")
                    && names.iter().any(|n| {
                        n.len() == 2
                            && n.starts_with('-')
                            && !n.starts_with("--")
                            && a.contains(&n[1..])
                    }))
        })
    };
    let all = flag(&["-a", "--all"]);
    let every = |what: &str| {
        args.iter().any(|a| {
            a.contains("$(")
                && (a.contains(" ps")
                    || a.contains(" images")
                    || a.contains(" volume ls")
                    || a.contains("-q"))
                && !what.is_empty()
        })
    };
    match operands.as_slice() {
        ["system", "prune", ..] if all || flag(&["--volumes"]) => hit(
            "prune-all",
            format!("{program} system prune -a deletes every unused image, container and network"),
        ),
        ["image", "prune", ..] if all => hit(
            "prune-all",
            format!("{program} image prune -a deletes every unused image"),
        ),
        ["volume", "prune", ..] => hit(
            "volume-delete",
            format!("{program} volume prune deletes volumes and their data"),
        ),
        ["volume", "rm", ..] => hit(
            "volume-delete",
            format!("{program} volume rm deletes volumes and their data"),
        ),
        ["container", "prune", ..] => hit(
            "prune-all",
            format!("{program} container prune deletes every stopped container"),
        ),
        ["compose", "down", ..] if flag(&["-v", "--volumes"]) => hit(
            "volume-delete",
            "compose down -v deletes the project's volumes",
        ),
        ["rm" | "rmi" | "kill" | "stop", ..] | ["container" | "image", "rm" | "kill", ..]
            if every("all") =>
        {
            hit(
                "remove-all",
                format!("{program} {} of every container or image", operands[0]),
            )
        }
        _ => None,
    }
}

/// The `kubernetes` pack.
pub fn kubernetes(call: &Call) -> Option<Hit> {
    match call.program {
        "helm" => {
            let verb = call.args.iter().find(|a| !a.starts_with('-'))?;
            matches!(verb.as_str(), "uninstall" | "delete" | "del" | "un").then(|| Hit {
                rule: "helm-uninstall",
                what: format!("helm {verb} deletes a release and its resources"),
            })
        }
        "kubectl" | "oc" | "k" => {
            let flags = Flags::parse(
                call.args,
                &[
                    "-n",
                    "--namespace",
                    "--context",
                    "--cluster",
                    "-l",
                    "--selector",
                    "-o",
                    "--kubeconfig",
                    "-f",
                    "--filename",
                    "--grace-period",
                    "--timeout",
                ],
            );
            let verb = *flags.operands.first()?;
            let everything = flags.long("all") || flags.short('A') || flags.long("all-namespaces");
            match verb {
                "delete" => {
                    let kinds = flags.operands.get(1).copied().unwrap_or_default();
                    if everything {
                        return hit(
                            "delete-all",
                            format!("kubectl delete {kinds} --all deletes every one of them"),
                        );
                    }
                    for kind in kinds.split(',') {
                        let kind = kind
                            .split('/')
                            .next()
                            .unwrap_or(kind)
                            .split('.')
                            .next()
                            .unwrap_or(kind);
                        let what = match kind {
                            "namespace" | "namespaces" | "ns" => "a namespace and everything in it",
                            "persistentvolume"
                            | "persistentvolumes"
                            | "pv"
                            | "persistentvolumeclaim"
                            | "persistentvolumeclaims"
                            | "pvc" => "a volume and its data",
                            "customresourcedefinition"
                            | "customresourcedefinitions"
                            | "crd"
                            | "crds" => "a CRD and every object of it",
                            "node" | "nodes" | "no" => "a node from the cluster",
                            "all" => "every resource",
                            _ => continue,
                        };
                        return hit(
                            "delete-critical",
                            format!("kubectl delete {kind} deletes {what}"),
                        );
                    }
                    None
                }
                "drain"
                    if flags.long("delete-emptydir-data") || flags.long("delete-local-data") =>
                {
                    hit(
                        "drain",
                        "kubectl drain --delete-emptydir-data deletes the pods' local data",
                    )
                }
                _ => None,
            }
        }
        _ => None,
    }
}
