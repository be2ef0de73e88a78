//! The `database` pack's `reset` rule: ORM and framework commands that drop a database and
//! build it again empty (`prisma migrate reset`, `prisma db push --force-reset`, `rails
//! db:reset`, `php artisan migrate:fresh`, `manage.py flush`, `supabase db reset`, ...), run
//! directly or through a package runner (`npx`, `pnpm`, `yarn`, `bunx`, `bundle exec`). Agents
//! reach for them to get past a migration error, and wipe whatever database the project's
//! settings point at, production included.

use policy_common::shell::Call;

use super::{Hit, hit};

/// Package runners whose first operand is the program they run.
const RUNNERS: &[&str] = &["npx", "bunx", "pnpx", "pnpm", "yarn", "npm"];
/// A runner's own subcommands that come before the program (`pnpm exec prisma`).
const RUNNER_VERBS: &[&str] = &["exec", "dlx", "x"];

/// What `program args` drops and rebuilds, if anything.
fn reset(program: &str, args: &[&str]) -> Option<&'static str> {
    let has = |word: &str| args.contains(&word);
    let first = args.first().copied().unwrap_or_default();
    let second = args.get(1).copied().unwrap_or_default();
    let program = program.strip_suffix(".js").unwrap_or(program);
    match program {
        "prisma" => match (first, second) {
            ("migrate", "reset") => Some("prisma migrate reset drops the database"),
            ("db", "push") if has("--force-reset") => {
                Some("prisma db push --force-reset drops every table")
            }
            _ => None,
        },
        "rails" | "rake" => args.iter().find_map(|a| match *a {
            "db:drop" | "db:drop:all" | "db:purge" | "db:purge:all" => {
                Some("rails db:drop deletes the database")
            }
            "db:reset" | "db:migrate:reset" | "db:schema:load" | "db:truncate_all" => {
                Some("rails db:reset rebuilds the database empty")
            }
            _ => None,
        }),
        "artisan" => match first {
            "migrate:fresh" | "migrate:reset" | "migrate:refresh" | "db:wipe" => {
                Some("artisan migrate:fresh drops every table")
            }
            _ => None,
        },
        "manage.py" | "django-admin" => match first {
            "flush" | "reset_db" => Some("manage.py flush deletes every row"),
            _ => None,
        },
        "supabase" if (first, second) == ("db", "reset") => {
            Some("supabase db reset rebuilds the database empty")
        }
        "drizzle-kit" if first == "push" && has("--force") => {
            Some("drizzle-kit push --force accepts every data-loss statement")
        }
        "sequelize" | "sequelize-cli" if matches!(first, "db:drop" | "db:migrate:undo:all") => {
            Some("sequelize db:drop deletes the database")
        }
        "typeorm" | "typeorm-ts-node-commonjs" | "typeorm-ts-node-esm"
            if first == "schema:drop" =>
        {
            Some("typeorm schema:drop drops every table")
        }
        "mix" if matches!(first, "ecto.drop" | "ecto.reset") => {
            Some("mix ecto.drop deletes the database")
        }
        "alembic" if first == "downgrade" && second == "base" => {
            Some("alembic downgrade base undoes every migration")
        }
        _ => None,
    }
}

/// The `database` pack's `reset` rule.
pub fn framework_reset(call: &Call) -> Option<Hit> {
    // Options are dropped, except the `--force` family the rules read.
    let operands: Vec<&str> = call
        .args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-') || a.starts_with("--force"))
        .collect();
    let what = match call.program {
        runner if RUNNERS.contains(&runner) => {
            let rest = match operands.first() {
                Some(verb) if RUNNER_VERBS.contains(verb) => &operands[1..],
                _ => &operands[..],
            };
            let (program, args) = rest.split_first()?;
            let program = program.rsplit('/').next().unwrap_or(program);
            // `npx prisma@6 migrate reset`: the version is not the program's name.
            let program = program.split('@').next().unwrap_or(program);
            reset(program, args)
        }
        // `php artisan ...`, `python manage.py ...`: the script is the program.
        interpreter
            if interpreter == "php"
                || interpreter == "sail"
                || interpreter.starts_with("python") =>
        {
            let (script, args) = operands.split_first()?;
            reset(script.rsplit('/').next().unwrap_or(script), args)
        }
        program => reset(program, &operands),
    }?;
    hit("reset", what)
}

#[cfg(test)]
mod tests {
    use super::*;
    use policy_common::shell;

    fn first_hit(command: &str) -> Option<String> {
        let script = shell::parse(command);
        shell::visit(&script, &mut |call| framework_reset(call).map(|h| h.what))
    }

    #[test]
    fn resets_through_runners_and_interpreters() {
        for (name, command) in [
            ("prisma via npx", "npx prisma migrate reset --force"),
            ("prisma push", "pnpm exec prisma db push --force-reset"),
            ("prisma pinned", "npx prisma@6.1 migrate reset"),
            ("yarn", "yarn prisma migrate reset"),
            ("rails", "bin/rails db:reset"),
            ("rake drop", "bundle exec rake db:drop db:create"),
            ("artisan", "php artisan migrate:fresh --seed"),
            ("django", "python3 manage.py flush --noinput"),
            ("django direct", "./manage.py flush"),
            ("supabase", "npx supabase db reset"),
            ("drizzle", "npx drizzle-kit push --force"),
            ("ecto", "mix ecto.reset"),
            ("alembic", "alembic downgrade base"),
        ] {
            assert!(first_hit(command).is_some(), "{name}: {command}");
        }
    }

    #[test]
    fn migrations_that_keep_data_pass() {
        for (name, command) in [
            (
                "prisma migrate dev",
                "npx prisma migrate dev --name add_field",
            ),
            ("prisma push", "npx prisma db push"),
            ("prisma generate", "pnpm prisma generate"),
            ("rails migrate", "rails db:migrate"),
            ("artisan migrate", "php artisan migrate"),
            ("django migrate", "python manage.py migrate"),
            ("drizzle push", "npx drizzle-kit push"),
            ("alembic upgrade", "alembic upgrade head"),
            ("alembic one down", "alembic downgrade -1"),
            ("npm test", "npm test"),
            ("reset as text", "echo 'npx prisma migrate reset'"),
        ] {
            assert_eq!(first_hit(command), None, "{name}: {command}");
        }
    }
}
