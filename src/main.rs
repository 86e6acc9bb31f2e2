//! The `damka` command line: parse, run, map errors to exit codes.

fn main() -> std::process::ExitCode {
    damka::cli::main()
}
