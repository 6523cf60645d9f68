#!/usr/bin/env node
// Run a TensorFlow.js graph model with the original runtime (npm @tensorflow/tfjs, pure-JS
// CPU backend) on inputs given as .npy files, and write the outputs as .npy files. This is the
// reference that python/importers/tfjs_graph.py is checked against.
//
// Usage (node deps: `npm ci --prefix python` once):
//   node python/importers/tfjs_run.js JOB.json
// JOB.json:
//   {"model": "path/to/model.json",
//    "runs": [{"inputs": {"input_1:0": "in.npy"}, "outputs": {"Identity:0": "out0.npy", ...}}, ...]}
// or several models in one process: {"models": [{"model": ..., "runs": [...]}, ...]}.
// Relative paths in the job are taken relative to the job file. Only float32/int32 .npy files
// (little-endian, C order) are read and written.
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const NPY_DTYPES = { '<f4': 'float32', '<i4': 'int32' };

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.readUInt32BE(0) !== 0x934e554d || buf.toString('latin1', 4, 6) !== 'PY') {
    throw new Error(`${file}: not an .npy file`);
  }
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const headerStart = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', headerStart, headerStart + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const fortran = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shape) throw new Error(`${file}: cannot parse npy header ${header}`);
  const dtype = NPY_DTYPES[descr[1]];
  if (!dtype) throw new Error(`${file}: dtype ${descr[1]} not supported (float32/int32 only)`);
  if (fortran[1] === 'True') throw new Error(`${file}: Fortran order not supported`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const start = headerStart + headerLen;
  const bytes = buf.subarray(start, start + count * 4);
  if (bytes.length !== count * 4) throw new Error(`${file}: truncated data`);
  const copy = new Uint8Array(bytes).buffer; // aligned copy
  const data = dtype === 'float32' ? new Float32Array(copy) : new Int32Array(copy);
  return tf.tensor(data, dims, dtype);
}

function writeNpy(file, tensor) {
  const descr = { float32: '<f4', int32: '<i4' }[tensor.dtype];
  if (!descr) throw new Error(`${file}: output dtype ${tensor.dtype} not supported`);
  const shape = tensor.shape.length === 1 ? `(${tensor.shape[0]},)` : `(${tensor.shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header = header + ' '.repeat(pad % 64) + '\n';
  const head = Buffer.alloc(10);
  head.writeUInt32BE(0x934e554d, 0);
  head.write('PY', 4, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  // dataSync() may be a view into a larger buffer (e.g. the outputs of a split): copy its bytes only.
  const values = tensor.dataSync();
  const data = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), data]));
}

// tfjs loads a graph model through an IOHandler; this one reads model.json and its weight
// shards from the local file system (the browser/http handlers do not apply in node without
// tfjs-node).
function fileHandler(modelJson) {
  return {
    load: async () => {
      const model = JSON.parse(fs.readFileSync(modelJson, 'utf8'));
      const dir = path.dirname(modelJson);
      const specs = [];
      const parts = [];
      for (const group of model.weightsManifest) {
        for (const p of group.paths) parts.push(fs.readFileSync(path.join(dir, p)));
        specs.push(...group.weights);
      }
      const all = Buffer.concat(parts);
      return {
        modelTopology: model.modelTopology,
        weightSpecs: specs,
        weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
        format: model.format,
        generatedBy: model.generatedBy,
        convertedBy: model.convertedBy,
        signature: model.signature,
        userDefinedMetadata: model.userDefinedMetadata,
        modelInitializer: model.modelInitializer,
      };
    },
  };
}

async function main() {
  if (process.argv.length !== 3) {
    console.error('usage: node tfjs_run.js JOB.json');
    process.exit(2);
  }
  const jobFile = process.argv[2];
  const job = JSON.parse(fs.readFileSync(jobFile, 'utf8'));
  const base = path.dirname(jobFile);
  const rel = (p) => (path.isAbsolute(p) ? p : path.join(base, p));

  await tf.setBackend('cpu');
  await tf.ready();
  for (const entry of job.models || [job]) await runModel(entry, rel);
}

async function runModel(entry, rel) {
  const model = await tf.loadGraphModel(fileHandler(rel(entry.model)));
  for (const run of entry.runs) {
    const feeds = {};
    for (const [name, file] of Object.entries(run.inputs)) feeds[name] = readNpy(rel(file));
    const names = Object.keys(run.outputs);
    const t0 = Date.now();
    // execute() covers graphs without control flow; executeAsync() the rest (while loops,
    // NonMaxSuppression), which execute() refuses with an error.
    let outs;
    try {
      outs = model.execute(feeds, names);
    } catch (e) {
      outs = await model.executeAsync(feeds, names);
    }
    if (!Array.isArray(outs)) outs = [outs];
    const ms = Date.now() - t0;
    names.forEach((name, i) => writeNpy(rel(run.outputs[name]), outs[i]));
    console.log(`[tfjs_run] ${Object.values(run.inputs).join(',')}: ${names.length} outputs in ${ms} ms`
      + ` (backend ${tf.getBackend()}, tfjs ${tf.version.tfjs})`);
    tf.dispose(outs);
    tf.dispose(Object.values(feeds));
  }
}

main().catch((e) => {
  console.error(`[tfjs_run] ${e.stack || e}`);
  process.exit(1);
});
