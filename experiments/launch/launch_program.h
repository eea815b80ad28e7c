#pragma once
// What `compopt launch -- WORD ARGS` runs in each rank: this compopt binary when WORD is one
// of its subcommands, otherwise the program WORD found the way execvp() finds it (WORD itself
// when it contains a '/', else the first executable file of that name in a PATH directory).
// The lookup runs once in the launcher, so a missing program is refused before any rank starts.

#include <string>

namespace compopt::cli {

// The file execvp() would run for `program` with `path` as PATH (nullptr: PATH unset, execvp's
// default /bin:/usr/bin); empty when there is none.
std::string find_program(const std::string& program, const char* path);

// find_program() with this process's PATH; throws InvalidArgument naming `program` when it is
// not found or not executable.
std::string resolve_program(const std::string& program);

}  // namespace compopt::cli
