// Expected ids for tokenizer_json_test.cpp's Split-behaviour and merge-order cases, from Hugging
// Face tokenizers itself (npm's @anush008/tokenizers, its Node binding). Prints the C++ table
// pasted into the test, which then runs without npm:
//   npm install --prefix DIR @anush008/tokenizers
//   NODE_PATH=DIR/node_modules node tests/core/pretrained/tokenizers_split_cases.js
// The tokenizer.json built here is the one the test builds (split_tokenizer_json).
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Tokenizer } = require('@anush008/tokenizers');

const pieces = ['a', 'b', 'c', '-', ' ', 'a-', '-b', '--', '-c', 'b-', 'a-b', '[UNK]'];
const merges = ['a -', '- b', '- -', '- c', 'b -', 'a- b'];

function tokenizerJson(preTokenizer) {
  const vocab = {};
  pieces.forEach((p, i) => { vocab[p] = i; });
  return {
    version: '1.0', added_tokens: [], normalizer: null, pre_tokenizer: preTokenizer, post_processor: null, decoder: null,
    model: { type: 'BPE', dropout: null, unk_token: '[UNK]', continuing_subword_prefix: null, end_of_word_suffix: null,
             fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges },
  };
}

const texts = ['a-b', 'a--b', '-a-', 'a-b--c', '--', 'b-a -c', 'ab', ''];
const behaviors = ['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous'];
const cases = [];
for (const behavior of behaviors)
  for (const invert of [false, true]) {
    cases.push({ name: `String "-" ${behavior}${invert ? ' invert' : ''}`,
                 pre: { type: 'Split', pattern: { String: '-' }, behavior, invert } });
  }
for (const behavior of behaviors)
  cases.push({ name: `Regex "-+|b" ${behavior}`, pre: { type: 'Split', pattern: { Regex: '-+|b' }, behavior, invert: false } });
cases.push({ name: 'Regex "x*" Isolated (empty matches)', pre: { type: 'Split', pattern: { Regex: 'x*' }, behavior: 'Isolated', invert: false } });
cases.push({ name: 'Regex "x*" MergedWithNext (empty matches)', pre: { type: 'Split', pattern: { Regex: 'x*' }, behavior: 'MergedWithNext', invert: false } });
for (const behavior of behaviors)
  cases.push({ name: `Punctuation ${behavior}`, pre: { type: 'Punctuation', behavior } });
cases.push({ name: 'CharDelimiterSplit "-"', pre: { type: 'CharDelimiterSplit', delimiter: '-' } });

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'split-cases-'));
  const lines = [];
  for (const c of cases) {
    const file = path.join(dir, 'tokenizer.json');
    fs.writeFileSync(file, JSON.stringify(tokenizerJson(c.pre)));
    const tok = Tokenizer.fromFile(file);
    const ids = [];
    for (const t of texts) ids.push((await tok.encode(t, null, { addSpecialTokens: false })).getIds());
    lines.push(`    {${JSON.stringify(JSON.stringify(c.pre))}, {${ids.map((x) => '{' + x.join(', ') + '}').join(', ')}}},  // ${c.name}`);
  }
  console.log(`// texts: ${JSON.stringify(texts)}`);
  console.log(lines.join('\n'));
  // Merge order: ranks not in build order ("aa a" before "a a").
  const vocab = { a: 0, aa: 1, aaa: 2 };
  const j = { version: '1.0', added_tokens: [], normalizer: null, pre_tokenizer: null, post_processor: null, decoder: null,
              model: { type: 'BPE', unk_token: null, vocab, merges: ['aa a', 'a a'] } };
  const file = path.join(dir, 'tokenizer.json');
  fs.writeFileSync(file, JSON.stringify(j));
  const tok = Tokenizer.fromFile(file);
  for (const t of ['aaaa', 'aaaaa', 'aaaaaaa'])
    console.log(`// merge order ${t}: ${JSON.stringify((await tok.encode(t, null, { addSpecialTokens: false })).getIds())}`);
  fs.rmSync(dir, { recursive: true });
})();
