//! The `hookhost` command: a thin layer over the library. `main` maps errors to exit codes.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(error) => {
            // `{:#}` prints the whole cause chain on one line; each cause on its own reads better.
            eprintln!("error: {error}");
            for cause in error.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            if error.downcast_ref::<cli::UsageError>().is_some() {
                ExitCode::from(cli::EXIT_USAGE)
            } else {
                ExitCode::from(cli::EXIT_ERROR)
            }
        }
    }
}
