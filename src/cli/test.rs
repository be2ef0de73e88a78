//! `hookhost test [FILES...] [--junit FILE]`: run the policy tests of `hooks.test.toml` files
//! (`hookhost::policy_test`) through the real hooks, print a table, a diff for each failure,
//! and, on request, JUnit XML for CI.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use hookhost::policy_test::{self, CaseFile, CaseFileError, CaseResult, Status, junit};

use super::render::{self, safe};

#[derive(clap::Args)]
pub struct TestArgs {
    /// Test files, or directories whose `*.test.toml` files to run [default: hooks.test.toml in
    /// .forgeflare/ and in the current directory]
    #[arg(value_name = "FILES")]
    files: Vec<PathBuf>,
    /// Also write the results as JUnit XML to FILE (replaced whole, never half-written)
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
}

/// Where `hookhost test` looks without FILES.
const DEFAULT_FILES: [&str; 2] = [".forgeflare/hooks.test.toml", policy_test::DEFAULT_FILE];

pub async fn run(args: TestArgs) -> Result<ExitCode> {
    let files = test_files(&args.files)?;
    let scratch = tempfile::tempdir().context("cannot create a temporary directory")?;
    let mut base = hookhost::RunnerOptions::new(".");
    super::progress::watch_compiles(&mut base);
    let mut reports: Vec<(String, Result<Vec<CaseResult>, String>)> = Vec::new();
    for (number, path) in files.iter().enumerate() {
        let shown = safe(&path.display().to_string());
        let file = match CaseFile::load(path) {
            Ok(file) => file,
            Err(error) => {
                let text = match &error {
                    CaseFileError::Invalid { .. } => error.to_string(),
                    CaseFileError::Read { .. } => hookhost::text::error_chain(&error),
                };
                let text: Vec<String> = text.lines().map(safe).collect();
                eprintln!("{}", text.join("\n"));
                reports.push((shown, Err(text.join("\n"))));
                continue;
            }
        };
        let state = scratch.path().join(number.to_string());
        let results = policy_test::run_file(&file, &base, &state).await;
        print_results(&shown, &results);
        reports.push((shown, Ok(results)));
    }
    let all: Vec<&CaseResult> = reports
        .iter()
        .filter_map(|(_, results)| results.as_ref().ok())
        .flatten()
        .collect();
    let failed = all
        .iter()
        .filter(|r| matches!(r.status, Status::Failed(_)))
        .count();
    let errors = all
        .iter()
        .filter(|r| matches!(r.status, Status::Error(_)))
        .count();
    let invalid = reports.iter().filter(|(_, r)| r.is_err()).count();
    println!(
        "\n{} case{}: {} passed, {failed} failed, {errors} could not run{}",
        all.len(),
        if all.len() == 1 { "" } else { "s" },
        all.len() - failed - errors,
        match invalid {
            0 => String::new(),
            1 => "; 1 test file is invalid".to_string(),
            n => format!("; {n} test files are invalid"),
        }
    );
    if let Some(path) = &args.junit {
        write_junit(path, &reports)?;
    }
    Ok(match failed + errors + invalid {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::from(super::EXIT_ERROR),
    })
}

/// The files to run: FILES (a directory stands for its `*.test.toml` files, by name), or the
/// default files that exist.
fn test_files(given: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if given.is_empty() {
        let found: Vec<PathBuf> = DEFAULT_FILES
            .iter()
            .map(PathBuf::from)
            .filter(|path| path.is_file())
            .collect();
        if found.is_empty() {
            bail!(
                "no test file found: looked for {}; pass FILES (see `hookhost test --help`)",
                DEFAULT_FILES.join(" and ")
            );
        }
        return Ok(found);
    }
    let mut files = Vec::new();
    for path in given {
        if !path.is_dir() {
            // A file that is not there is reported by its load, with its name.
            files.push(path.clone());
            continue;
        }
        let mut inside: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("cannot read the directory {}", path.display()))?
            .flatten()
            .map(|entry| entry.path())
            .filter(|file| {
                file.is_file()
                    && file
                        .file_name()
                        .is_some_and(|name| name.as_encoded_bytes().ends_with(b".test.toml"))
            })
            .collect();
        if inside.is_empty() {
            bail!("{} holds no *.test.toml file", path.display());
        }
        inside.sort();
        files.extend(inside);
    }
    Ok(files)
}

/// A file's table, then each failure's diff and each error.
fn print_results(file: &str, results: &[CaseResult]) {
    println!("{file}");
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|result| {
            vec![
                safe(&result.name),
                safe(&result.event),
                result.actual.as_deref().map(safe).unwrap_or_default(),
                match result.actual {
                    Some(_) => render::duration(result.duration),
                    None => "-".to_string(),
                },
                match result.status {
                    Status::Passed => "ok",
                    Status::Failed(_) => "FAILED",
                    Status::Error(_) => "ERROR",
                }
                .to_string(),
            ]
        })
        .collect();
    let table = render::table(&["CASE", "EVENT", "CAME OUT", "TIME", "RESULT"], &rows);
    for line in table.lines() {
        println!("  {line}");
    }
    for result in results {
        let at = format!("{file}:{}: {}", result.location, safe(&result.name));
        match &result.status {
            Status::Passed => {}
            Status::Failed(mismatches) => {
                println!("\nFAILED {at}");
                println!("  --- expected\n  +++ came out");
                for mismatch in mismatches {
                    println!("  {}:", mismatch.key);
                    for line in mismatch.diff() {
                        println!("    {}", safe(&line));
                    }
                }
            }
            Status::Error(error) => {
                println!("\nERROR {at}");
                for line in error.lines() {
                    println!("  {}", safe(line));
                }
            }
        }
    }
}

/// The JUnit report, written beside its final name and renamed into place.
fn write_junit(path: &Path, reports: &[(String, Result<Vec<CaseResult>, String>)]) -> Result<()> {
    // An invalid file is a suite with one case in error, so that CI shows it too.
    let invalid: Vec<(String, Vec<CaseResult>)> = reports
        .iter()
        .filter_map(|(name, results)| {
            let error = results.as_ref().err()?;
            Some((
                name.clone(),
                vec![CaseResult {
                    name: "(the test file)".to_string(),
                    location: hookhost::config::Location::default(),
                    event: String::new(),
                    actual: None,
                    duration: std::time::Duration::ZERO,
                    status: Status::Error(error.clone()),
                }],
            ))
        })
        .collect();
    let suites: Vec<junit::Suite<'_>> = reports
        .iter()
        .filter_map(|(name, results)| {
            Some(junit::Suite {
                name,
                results: results.as_ref().ok()?,
            })
        })
        .chain(
            invalid
                .iter()
                .map(|(name, results)| junit::Suite { name, results }),
        )
        .collect();
    let xml = junit::to_xml(&suites);
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write the JUnit report in {}", dir.display()))?;
    std::io::Write::write_all(&mut file, xml.as_bytes())
        .with_context(|| format!("cannot write the JUnit report {}", path.display()))?;
    // Readable by whatever uploads it, as a file written with the usual umask would be.
    std::fs::set_permissions(
        file.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .with_context(|| format!("cannot write the JUnit report {}", path.display()))?;
    file.persist(path)
        .with_context(|| format!("cannot write the JUnit report {}", path.display()))?;
    Ok(())
}
