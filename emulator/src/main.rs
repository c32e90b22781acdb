//! `geocache-emulator` binary: flags in, server out (see `geocache_emulator::cli::config`), or
//! one of its commands (`owner ...`).

use clap::Parser;
use geocache_emulator::cli::config::{Command, Config};
use geocache_emulator::cli::owner;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let mut config = Config::parse();
    if let Some(Command::Owner(command)) = config.command.take() {
        return match owner::run(command, owner::read_password, &mut std::io::stdout()).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("geocache-emulator owner: {error}");
                ExitCode::FAILURE
            }
        };
    }
    match geocache_emulator::serve(config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("geocache-emulator: {error}");
            ExitCode::FAILURE
        }
    }
}
