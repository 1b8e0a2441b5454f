// One llama.cpp round for llama_cpp_bench.py: loads a GGUF file with npm's node-llama-cpp (its
// prebuilt llama.cpp, CPU only) and evaluates the given token ids as one prompt (no sampling),
// then prints {"load_ms", "context_ms", "eval_ms"} as JSON on one line.
//   node llama_cpp_eval.mjs PACKAGE_DIR MODEL.gguf IDS.json THREADS
// PACKAGE_DIR: where `npm install --prefix PACKAGE_DIR node-llama-cpp` put the package (never a
// dependency of headscope: the benchmark installs it in a cache folder).
import path from "node:path";
import fs from "node:fs";
import {pathToFileURL} from "node:url";

const [packageDir, modelPath, idsPath, threadsText] = process.argv.slice(2);
const entry = path.join(packageDir, "node_modules", "node-llama-cpp", "dist", "index.js");
const {getLlama, LlamaLogLevel} = await import(pathToFileURL(entry).href);
const ids = JSON.parse(fs.readFileSync(idsPath, "utf8"));
const threads = Number(threadsText);

const t0 = performance.now();
const llama = await getLlama({gpu: false, build: "never", progressLogs: false, logLevel: LlamaLogLevel.error, maxThreads: 0});
const model = await llama.loadModel({modelPath, gpuLayers: 0});
const t1 = performance.now();
const context = await model.createContext({contextSize: ids.length + 64, batchSize: ids.length, sequences: 1,
                                           threads: {ideal: threads, min: threads}});
const sequence = context.getSequence();
const t2 = performance.now();
await sequence.evaluateWithoutGeneratingNewTokens(ids);
const t3 = performance.now();
console.log(JSON.stringify({load_ms: t1 - t0, context_ms: t2 - t1, eval_ms: t3 - t2}));
await context.dispose();
await model.dispose();
await llama.dispose();
