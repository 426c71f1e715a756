import type { EmulatorApp, EmulatorReply, EmulatorRequest, Method, RouteOptions } from "./emulator-app";

/**
 * One row of a local service's route table: a method, a path under the service's prefix, and a
 * small named handler. The handler gets what the service's `mount` built once (its runtime: caches,
 * indexes, limits) beside the request, so it can live at the top level of its module.
 */
export interface RouteRow<R> {
  method: Method;
  path: string;
  handler: (runtime: R, req: EmulatorRequest) => EmulatorReply | Promise<EmulatorReply>;
  options?: RouteOptions;
}

/** A service's routes as data: what it serves reads top to bottom in one list. */
export type RouteTable<R> = readonly RouteRow<R>[];

/** Registers every row of `table` on `app` under `prefix`, each handler bound to `runtime`. */
export function mountRouteTable<R>(app: EmulatorApp, prefix: string, table: RouteTable<R>, runtime: R): void {
  for (const row of table) app.route(row.method, `${prefix}${row.path}`, (req) => row.handler(runtime, req), row.options);
}
