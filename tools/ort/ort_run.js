#!/usr/bin/env node
// condlint's ONNX Runtime adapter. Protocol (the same as any `cmd:` runtime of `condlint diff`):
//   node ort_run.js MODEL.onnx INPUT_DIR OUTPUT_DIR
// reads INPUT_DIR/input_K.pb (onnx.TensorProto, K = the model's input order), runs the model on the
// CPU, writes OUTPUT_DIR/output_K.pb (K = the model's output order). An output ONNX Runtime cannot
// return to JavaScript (a sequence, map or optional) is written as output_K.unsupported with the reason.
// Exit 0 on success, 1 when the model fails to load or run (message on stderr), 2 on usage errors.
//   node ort_run.js --batch JOBS.tsv     runs many jobs in one process (see batch() below).
//   node ort_run.js --check LIST RESULTS loads models without running them (see check() below).
'use strict';
const fs = require('fs');
const path = require('path');

let ort, onnx;
try {
  ort = require('onnxruntime-node');
  onnx = require('onnx-proto').onnx;
} catch (e) {
  process.stderr.write('ort_run: onnxruntime-node / onnx-proto are not installed (scripts/install-deps.sh installs them): ' + e.message + '\n');
  process.exit(2);
}

const T = onnx.TensorProto.DataType;
// ONNX element type -> [ort type name, typed array, bytes per element]
const TYPES = {
  [T.FLOAT]: ['float32', Float32Array, 4], [T.DOUBLE]: ['float64', Float64Array, 8],
  [T.INT8]: ['int8', Int8Array, 1], [T.UINT8]: ['uint8', Uint8Array, 1],
  [T.INT16]: ['int16', Int16Array, 2], [T.UINT16]: ['uint16', Uint16Array, 2],
  [T.INT32]: ['int32', Int32Array, 4], [T.UINT32]: ['uint32', Uint32Array, 4],
  [T.INT64]: ['int64', BigInt64Array, 8], [T.UINT64]: ['uint64', BigUint64Array, 8],
  [T.BOOL]: ['bool', Uint8Array, 1], [T.FLOAT16]: ['float16', Uint16Array, 2],
};
const BY_ORT = Object.fromEntries(Object.entries(TYPES).map(([k, v]) => [v[0], Number(k)]));

function toNumber(v) { return typeof v === 'object' && v !== null && 'low' in v ? Number(BigInt.asIntN(64, (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0))) : Number(v); }
function toBigInt(v, unsigned) {
  if (typeof v === 'object' && v !== null && 'low' in v) {
    const b = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
    return unsigned ? b : BigInt.asIntN(64, b);
  }
  return BigInt(v);
}

function tensorFromProto(tp) {
  const dims = (tp.dims || []).map(toNumber);
  const count = dims.reduce((a, b) => a * b, 1);
  if (tp.dataType === T.STRING) {
    const strs = (tp.stringData || []).map((b) => Buffer.from(b).toString('utf8'));
    return new ort.Tensor('string', strs, dims);
  }
  const info = TYPES[tp.dataType];
  if (!info) throw new Error('unsupported tensor element type ' + tp.dataType + ' in ' + (tp.name || 'input'));
  const [name, Arr, size] = info;
  let data;
  if (tp.rawData && tp.rawData.length) {
    const raw = Buffer.from(tp.rawData);
    if (raw.length !== count * size) throw new Error('raw_data has ' + raw.length + ' bytes, expected ' + count * size);
    const copy = new ArrayBuffer(raw.length);
    new Uint8Array(copy).set(raw);
    data = new Arr(copy);
  } else {
    data = new Arr(count);
    const src = tp.dataType === T.FLOAT ? tp.floatData : tp.dataType === T.DOUBLE ? tp.doubleData
      : tp.dataType === T.INT64 ? tp.int64Data : (tp.dataType === T.UINT32 || tp.dataType === T.UINT64) ? tp.uint64Data
      : tp.int32Data;
    for (let i = 0; i < count; i++) {
      const v = src[i];
      data[i] = (Arr === BigInt64Array || Arr === BigUint64Array) ? toBigInt(v, Arr === BigUint64Array) : toNumber(v);
    }
  }
  return new ort.Tensor(name, data, dims);
}

function protoFromTensor(t, name) {
  const tp = onnx.TensorProto.create({ name, dims: t.dims.map(Number) });
  if (t.type === 'string') {
    tp.dataType = T.STRING;
    tp.stringData = t.data.map((s) => Buffer.from(String(s), 'utf8'));
  } else {
    const dt = BY_ORT[t.type];
    if (dt === undefined) throw new Error('cannot write output of type ' + t.type);
    tp.dataType = dt;
    const d = t.data;
    tp.rawData = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  }
  return onnx.TensorProto.encode(tp).finish();
}

// The kind of each graph input/output ('tensor', 'sequence', 'map', 'optional', ...), from the model file.
function valueKinds(modelPath) {
  const kinds = {};
  try {
    const m = onnx.ModelProto.decode(fs.readFileSync(modelPath));
    for (const vi of [...(m.graph.input || []), ...(m.graph.output || [])]) {
      const t = vi.type || {};
      kinds[vi.name] = t.tensorType ? 'tensor' : t.sequenceType ? 'sequence' : t.mapType ? 'map'
        : t.optionalType ? 'optional' : t.sparseTensorType ? 'sparse tensor' : 'tensor';
    }
  } catch (e) { /* ORT reports unreadable models itself */ }
  return kinds;
}

async function runJob(session, kinds, inDir, outDir) {
  fs.mkdirSync(outDir, { recursive: true });
  const unsupported = (k, why) => fs.writeFileSync(path.join(outDir, 'output_' + k + '.unsupported'), why + '\n');
  // onnxruntime-node passes and returns tensors only: a model with another input kind cannot run here, and
  // outputs of another kind are not fetched.
  const badInput = session.inputNames.find((n) => kinds[n] && kinds[n] !== 'tensor');
  if (badInput) {
    session.outputNames.forEach((name, k) => unsupported(k, 'onnxruntime-node cannot pass the ' + kinds[badInput] + ' input ' + badInput + ' from JavaScript'));
    return;
  }
  const feeds = {};
  session.inputNames.forEach((name, k) => {
    const f = path.join(inDir, 'input_' + k + '.pb');
    if (!fs.existsSync(f)) throw new Error('missing ' + f + ' for input ' + name);
    feeds[name] = tensorFromProto(onnx.TensorProto.decode(fs.readFileSync(f)));
  });
  const fetch = session.outputNames.filter((n) => !kinds[n] || kinds[n] === 'tensor');
  const results = fetch.length ? await session.run(feeds, fetch) : {};
  session.outputNames.forEach((name, k) => {
    const t = results[name];
    if (!t || typeof t.dims === 'undefined') {
      unsupported(k, 'onnxruntime-node cannot return the ' + (kinds[name] || 'non-tensor') + ' output ' + name + ' to JavaScript');
      return;
    }
    fs.writeFileSync(path.join(outDir, 'output_' + k + '.pb'), protoFromTensor(t, name));
  });
}

function createSession(modelPath) {
  return ort.InferenceSession.create(modelPath, { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled', logSeverityLevel: 3 });
}

// Batch mode (condlint diff uses it to pay Node's start-up once): JOBS is a text file with one job a line,
// MODEL<TAB>INPUT_DIR<TAB>OUTPUT_DIR. Per job, OUTPUT_DIR gets the outputs and an empty file `done`, or
// error.txt with the reason; the batch goes on after a failed job. Exit 0 when the job list was read.
async function batch(listPath) {
  const lines = fs.readFileSync(listPath, 'utf8').split('\n').filter((l) => l.length);
  let cachedPath = null, cached = null, kinds = {};
  for (const line of lines) {
    const [modelPath, inDir, outDir] = line.split('\t');
    try {
      fs.mkdirSync(outDir, { recursive: true });
      if (cachedPath !== modelPath) {
        if (cached && cached.release) await cached.release();
        cached = null; cachedPath = null;
        kinds = valueKinds(modelPath);
        cached = await createSession(modelPath);
        cachedPath = modelPath;
      }
      await runJob(cached, kinds, inDir, outDir);
      fs.writeFileSync(path.join(outDir, 'done'), '');
    } catch (e) {
      fs.writeFileSync(path.join(outDir, 'error.txt'), String(e && e.message ? e.message : e) + '\n');
    }
  }
}

// Load check (`condlint lint --target onnxruntime`): LIST is a JSON array of model paths (no name can break it). For each model, a session is
// created with graph optimizations off and then on (an optimizer pass can refuse what loading accepts), and one JSON
// line is appended to RESULTS: {"i": INDEX, "ok": true} or {"i": INDEX, "ok": false, "stage": ..., "error": ...}.
// The first line is {"version": ...}. Lines are written as each model finishes, so the caller knows which model
// a crash or a hang stopped at. Exit 0 when the list was read.
async function check(listPath, resultsPath) {
  const models = JSON.parse(fs.readFileSync(listPath, 'utf8'));
  if (!Array.isArray(models) || !models.every((m) => typeof m === 'string')) {
    process.stderr.write('ort_run.js --check: LIST is not a JSON array of strings\n');
    process.exit(2);
  }
  const version = require('onnxruntime-node/package.json').version;
  fs.appendFileSync(resultsPath, JSON.stringify({ version }) + '\n');
  for (let i = 0; i < models.length; i++) {
    let result = { i, ok: true };
    for (const [stage, level] of [['optimizations off', 'disabled'], ['optimizations on', 'all']]) {
      try {
        const s = await ort.InferenceSession.create(models[i], { executionProviders: ['cpu'], graphOptimizationLevel: level, logSeverityLevel: 4 });
        if (s.release) await s.release();
      } catch (e) {
        result = { i, ok: false, stage, error: String(e && e.message ? e.message : e).slice(0, 16384) };
        break;
      }
    }
    fs.appendFileSync(resultsPath, JSON.stringify(result) + '\n');
  }
}

async function main() {
  if (process.argv[2] === '--check') {
    if (!process.argv[3] || !process.argv[4]) {
      process.stderr.write('usage: ort_run.js --check LIST RESULTS\n');
      process.exit(2);
    }
    return check(process.argv[3], process.argv[4]);
  }
  if (process.argv[2] === '--batch') {
    if (!process.argv[3]) {
      process.stderr.write('usage: ort_run.js --batch JOBS.tsv\n');
      process.exit(2);
    }
    return batch(process.argv[3]);
  }
  const [modelPath, inDir, outDir] = process.argv.slice(2);
  if (!modelPath || !inDir || !outDir) {
    process.stderr.write('usage: ort_run.js MODEL.onnx INPUT_DIR OUTPUT_DIR | ort_run.js --batch JOBS.tsv\n');
    process.exit(2);
  }
  const session = await createSession(modelPath);
  await runJob(session, valueKinds(modelPath), inDir, outDir);
}

main().catch((e) => {
  process.stderr.write('ort_run: ' + (e && e.message ? e.message : String(e)) + '\n');
  process.exit(1);
});
