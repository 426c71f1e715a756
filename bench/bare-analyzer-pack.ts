/**
 * The floor under any analyzer written in Node.js, for the pack-1000 bench: a policy pack whose
 * program does not use @pulumi/policy but serves the engine's Analyzer gRPC service itself with
 * grpc-js, answering every Remediate, Analyze and AnalyzeStack with nothing and leaving each request
 * undecoded. It judges nothing: it measures what replacing @pulumi/policy's server with our own
 * would save at most (the round trips and the process remain), so that can be decided on figures.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const PROGRAM = `const grpc = require("@grpc/grpc-js");
const analyzerpb = require("@pulumi/pulumi/proto/analyzer_pb");
const info = new analyzerpb.AnalyzerInfo();
info.setName("bare"); info.setVersion("0.1.0"); info.setSupportsconfig(true);
const replies = { GetAnalyzerInfo: Buffer.from(info.serializeBinary()) };
const raw = (b) => b;
const empty = Buffer.alloc(0);
const service = {}, handlers = {};
for (const name of ["Analyze", "AnalyzeStack", "Remediate", "GetAnalyzerInfo", "GetPluginInfo", "Configure", "ConfigureStack"]) {
  service[name] = { path: "/pulumirpc.Analyzer/" + name, requestStream: false, responseStream: false,
    requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw };
  handlers[name] = (call, callback) => callback(null, replies[name] ?? empty);
}
const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
server.addService(service, handlers);
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) { console.error(err); process.exit(1); }
  console.log(String(port));
});
`;

/** Writes the bare analyzer's pack into dir (its node_modules this checkout's) and returns dir. */
export function bareAnalyzerPack(dir: string, root: string): string {
  mkdirSync(dir, { recursive: true });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  writeFileSync(
    join(dir, "PulumiPolicy.yaml"),
    "runtime: nodejs\ndescription: a bare gRPC analyzer (the pack-1000 bench's floor of any Node.js analyzer)\n",
  );
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "bare-analyzer", version: "0.1.0", main: "index.js" }));
  writeFileSync(join(dir, "index.js"), PROGRAM);
  return dir;
}
