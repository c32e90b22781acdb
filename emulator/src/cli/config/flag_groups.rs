//! Parses one group of flags on its own, as the command line would, for the groups' tests.

use clap::{Args, FromArgMatches, Parser};

#[derive(Parser)]
struct Only<G: Args + FromArgMatches> {
    #[command(flatten)]
    group: G,
}

/// The group `G` from `args` (the flags only, without the program's name).
pub fn parse<G: Args + FromArgMatches>(args: &[&str]) -> Result<G, clap::Error> {
    let argv = std::iter::once("geocache-emulator").chain(args.iter().copied());
    Only::<G>::try_parse_from(argv).map(|only| only.group)
}
