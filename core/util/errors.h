#pragma once
// Typed errors for everything a user or a file can get wrong. Messages say what was given,
// what was expected, and where. Programmer errors are asserts, never these.
#include <stdexcept>
#include <string>

namespace hs {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A bad argument, setting or sentence: "heads (3) must divide d_model (8)".
struct InputError : Error {
  using Error::Error;
};

// A file whose content is not what its format promises: "x.npy: header length 9999 exceeds file size 80".
struct FormatError : Error {
  using Error::Error;
};

// A file that cannot be opened, read or written: "cannot write out/a.png: Permission denied".
struct IoError : Error {
  using Error::Error;
};

}  // namespace hs
