/**
 * What an ARM write is about, read from its path as Resource Manager reads it: the resource, its
 * provider and type, and the operation name Azure's Activity Log and Event Grid give it
 * (`Microsoft.Sql/servers/databases/transparentDataEncryption/write` for a TDE PUT). The
 * operation names follow "Azure resource provider operations"
 * (https://learn.microsoft.com/azure/role-based-access-control/resource-provider-operations):
 * `{namespace}/{type}/write` for PUT and PATCH, `/delete` for DELETE, `{namespace}/{type}/{action}/action`
 * for a POST of an action.
 */
export interface ArmWrite {
  method: string;
  /** The resource the write is about, as the request spelled it (a POST: the resource, without its action). */
  resourceId: string;
  subscriptionId: string;
  /** Empty for a subscription-level resource. */
  resourceGroupName: string;
  /** `Microsoft.Sql`; the described spelling `Provider.Sql` is given its real name, as Azure records it. */
  resourceProvider: string;
  /** `Microsoft.Sql/servers/databases/transparentDataEncryption` */
  resourceType: string;
  operationName: string;
  /** Which Event Grid resource event a success is: a write, a delete or an action. */
  kind: "write" | "delete" | "action";
}

/** The methods that change something, as Resource Manager counts writes. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(["PUT", "PATCH", "DELETE", "POST"]);

/** The ARM write a request is, or undefined when it is no write of a resource (a GET, a path outside `/subscriptions/…/providers/…`). */
export function armWrite(method: string, path: string): ArmWrite | undefined {
  if (!WRITE_METHODS.has(method)) return undefined;
  const parts = path.split("/").filter((p) => p.length > 0);
  if (parts[0]?.toLowerCase() !== "subscriptions" || !parts[1]) return undefined;
  const subscriptionId = parts[1];
  let i = 2;
  let resourceGroupName = "";
  if (parts[i]?.toLowerCase() === "resourcegroups" && parts[i + 1]) {
    resourceGroupName = parts[i + 1];
    i += 2;
  }
  if (parts[i]?.toLowerCase() !== "providers" || !parts[i + 1]) return undefined;
  const resourceProvider = realNamespace(parts[i + 1]);
  const rest = parts.slice(i + 2);
  // A POST of an action ends with the action's name after the resource's type/name pairs.
  const action = method === "POST" && rest.length % 2 === 1 ? rest.pop() : undefined;
  if (rest.length === 0 || rest.length % 2 !== 0) return undefined;
  const types = rest.filter((_, k) => k % 2 === 0);
  const resourceType = [resourceProvider, ...types].join("/");
  const resourceId = `/${parts.slice(0, i + 2 + rest.length).join("/")}`;
  const kind = action !== undefined ? "action" : method === "DELETE" ? "delete" : "write";
  const operationName = action !== undefined ? `${resourceType}/${action}/action` : `${resourceType}/${kind}`;
  return { method, resourceId, subscriptionId, resourceGroupName, resourceProvider, resourceType, operationName, kind };
}

/** `Provider.Sql` (the product description's spelling, which the emulator also serves) is `Microsoft.Sql` in Azure's records. */
function realNamespace(ns: string): string {
  return /^provider\./i.test(ns) ? `Microsoft.${ns.slice("Provider.".length)}` : ns;
}
