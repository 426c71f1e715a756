import type { ReadReceipt } from "../../../platform/arm/arm-read";
import type { SourceLocation } from "../../../platform/yaml/source-location";

/**
 * What every fact carries besides its data: where the stack file names it (report locations) and,
 * opaque to the rules, where it came from (`origin`: the Pulumi URN of the resource in the policy
 * pack), which findings carry through so a violation is reported on that resource.
 */
export interface FactOrigin {
  source?: SourceLocation;
  origin?: string;
  /** The reads the fact was made from (operation, time, Resource Manager's request id): evidence bundles carry them. */
  reads?: ReadReceipt[];
  /**
   * Why the subject's data could not be read (the cloud has no such database …): no rule judges
   * it then; every finding about it is not-applicable with this reason (evaluate.ts).
   */
  unread?: string;
}

/**
 * The fact kinds' element types, by their key in `ComplianceFacts`. Each fact kind's module adds its
 * own entry (`declare module "./model/compliance-facts" { interface FactMap { key: ItsFacts } }`), so a kind is
 * declared in one place and rules see its facts typed.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface FactMap {}

/**
 * Everything the rules judge: plain data, gathered from the APIs (`check`, a watch tick) or built
 * from resources (the policy pack), one list per fact kind. A kind no enabled rule needs is an empty list.
 */
export type ComplianceFacts = { subscriptionId: string } & { [K in keyof FactMap]: FactMap[K][] };
