import { describe, expect, it } from "vitest";
import { EmulatorApp, type EmulatorRequest } from "../../../src/emulator/kit/emulator-app";
import { mountRouteTable, type RouteTable } from "../../../src/emulator/kit/route-table";
import { BINARY_ANALYSIS_ROUTES } from "../../../src/emulator/services/binary-analysis/binary-analysis-routes";
import { GEOCODING_ROUTES } from "../../../src/emulator/services/geocoding/geocoding-routes";

/** Route tables: a service's routes as data, mounted under its prefix with what its mount built. */
describe("route tables", () => {
  it("mounts each row under the prefix, hands its handler the runtime, and keeps its options", async () => {
    const app = new EmulatorApp();
    const runtime = { greeting: "hello" };
    const table: RouteTable<typeof runtime> = [
      { method: "GET", path: "/greet/:name", handler: (rt, req) => ({ status: 200, body: `${rt.greeting} ${req.params.name}` }) },
      { method: "POST", path: "/upload", handler: () => ({ status: 204 }), options: { streamBody: true } },
    ];
    mountRouteTable(app, "/svc/v1", table, runtime);
    const greet = app.find("GET", "/svc/v1/greet/ada")!;
    expect(greet).toMatchObject({ pattern: "/svc/v1/greet/{name}", streamBody: false, params: { name: "ada" } });
    expect(await greet.handler({ params: greet.params } as unknown as EmulatorRequest)).toEqual({ status: 200, body: "hello ada" });
    expect(app.find("POST", "/svc/v1/upload")).toMatchObject({ streamBody: true });
    expect(app.find("GET", "/greet/ada")).toBeUndefined();
  });

  it("the binary analysis service's table is the contract's four operations (uploads streamed) plus /clean", () => {
    expect(BINARY_ANALYSIS_ROUTES.map((r) => `${r.method} ${r.path}${r.options?.streamBody ? " (streamed)" : ""}`)).toEqual([
      "POST /apply-yara-rules (streamed)",
      "POST /unpack (streamed)",
      "POST /emulation-output (streamed)",
      "POST /generate-partial-yara-rules (streamed)",
      "HEAD /clean",
    ]);
  });

  it("the geocoding service's table is the contract's six GET operations", () => {
    expect(GEOCODING_ROUTES.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
      [
        "GET /street/find",
        "GET /geoloc/search",
        "GET /fulltext/search",
        "GET /geocoding/geocode",
        "GET /addressparser/parse",
        "GET /reversegeocoding/reversegeocode",
      ].sort(),
    );
  });
});
