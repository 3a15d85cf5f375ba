//! `forsyth datagen`: self-play data ([`crate::tools::datagen`]), or
//! its files printed as text or converted.

use super::args::{DatagenAction, DatagenArgs};
use crate::tools::datagen;

/// The `datagen` command and its `text` and `convert` actions.
pub fn run(args: &DatagenArgs) -> Result<(), datagen::DatagenError> {
    match (&args.action, args.options()) {
        (Some(DatagenAction::Text { file }), _) => datagen::print_text(file),
        (Some(DatagenAction::Convert { games, records }), _) => {
            let n = datagen::convert(games, records)?;
            eprintln!(
                "datagen convert: {n} records written to {}",
                records.display()
            );
            Ok(())
        }
        (None, Some(options)) => datagen::run(&options).map(|_| ()),
        // clap asks for --out without `text`.
        (None, None) => Err(datagen::DatagenError::Usage(
            "--out PATH is required".into(),
        )),
    }
}
