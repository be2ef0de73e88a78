//! Text options that say which option was not UTF-8. Paths (`PathBuf`) take any bytes; every
//! value clap reads as a `String` goes through [`Utf8Text`], which refuses bytes that are not
//! UTF-8 naming the option (`--tool <TOOL>`), and keeps the option's possible values.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;
use clap::{Arg, Command};

/// `command` with every text option of it and of its subcommands read by [`Utf8Text`].
pub fn name_options(command: Command) -> Command {
    let text = clap::builder::ValueParser::string().type_id();
    command
        .mut_args(|arg| {
            if arg.get_value_parser().type_id() == text {
                let possible = arg.get_possible_values();
                arg.value_parser(Utf8Text { possible })
            } else {
                arg
            }
        })
        .mut_subcommands(name_options)
}

/// A `String` value: UTF-8, and one of `possible` when the option lists them.
#[derive(Clone)]
struct Utf8Text {
    possible: Vec<PossibleValue>,
}

impl TypedValueParser for Utf8Text {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &Command,
        arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        let Some(text) = value.to_str() else {
            let option = arg.map_or_else(|| "...".to_string(), |arg| format!("'{arg}'"));
            let message = format!(
                "the value {:?} of {option} is not valid UTF-8: it takes text (only paths may \
                 hold other bytes)\n",
                value.to_string_lossy()
            );
            return Err(clap::Error::raw(ErrorKind::InvalidUtf8, message).with_cmd(cmd));
        };
        if self.possible.is_empty() {
            return Ok(text.to_string());
        }
        PossibleValuesParser::new(self.possible.clone()).parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        if self.possible.is_empty() {
            return None;
        }
        Some(Box::new(self.possible.iter().cloned()))
    }
}
