#pragma once
// How a token reads on an axis, on screen and in figures alike (one rule for both):
//   - a space (the loaders' "▁" U+2581, or a plain " ") is a thin middle dot "·" (SpaceMark::dot),
//     or nothing (SpaceMark::none); a token of spaces only is an open box "␣" per space either way
//     (a lone dot would read like a full stop);
//   - byte-fallback pieces "<0xE6><0x88><0x91>" that spell a character, within a token or across
//     consecutive tokens, show the character on the token whose byte completes it; a token whose
//     bytes only start it shows "…" (its continuation follows); bytes that spell nothing stay
//     "<0xHH>";
//   - control characters: newline "↵", tab "⇥", carriage return dropped, others their U+2400
//     picture ("␀", "␛", "␡");
//   - a character the fonts cannot draw is named "U+1F600": every one beyond U+FFFF (the app's font
//     atlas holds 16-bit characters only, and figures say the same), and any other `drawable`
//     refuses. Two different characters never look the same.
//   - an empty token is "∅".
// token_bytes_note() says which bytes a label stands for (the hover).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hs {

// text: a real space, for running text such as a tooltip's context (not offered as a label style).
enum class SpaceMark { dot, none, text };

// "dot", "none" ("text" for SpaceMark::text).
const char* space_mark_name(SpaceMark mark);
// Parses "dot" or "none"; throws InputError naming the choices.
SpaceMark parse_space_mark(const std::string& name);

struct TokenLabelOptions {
  SpaceMark space = SpaceMark::dot;
  // Whether the fonts hold a glyph for a character up to U+FFFF; empty: every one.
  std::function<bool(uint32_t)> drawable;
};

// The label of tokens[i] (tokens as the loaders name them: "▁time", "<0xE6>"); "" when i is out of range.
std::string token_label(const std::vector<std::string>& tokens, size_t i, const TokenLabelOptions& options = {});

// Every token's label.
std::vector<std::string> token_labels(const std::vector<std::string>& tokens, const TokenLabelOptions& options = {});

// For a token holding byte-fallback pieces: what they spell, e.g. "bytes <0xE6><0x88><0x91> (tokens
// 3-5) spell \"我\"" on each of the three tokens; "" for a token without byte pieces.
std::string token_bytes_note(const std::vector<std::string>& tokens, size_t i, const TokenLabelOptions& options = {});

}  // namespace hs
