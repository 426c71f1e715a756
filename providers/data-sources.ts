import type * as pulumi from "@pulumi/pulumi";
import type * as DataCore from "../src/interfaces/pulumi/data-sources";
import { LeanDynamicResource } from "./lean-dynamic-resource";

type Kind = DataCore.DataSourceKind;

type In = pulumi.Input<string>;

/**
 * Base of every data source: the type token is `pulumi-nodejs:dynamic/<module>:<Type>`; the provider
 * (providers/data-source-provider.ts) is loaded from dist/ at call time.
 */
abstract class DataSource extends LeanDynamicResource {
  protected constructor(kind: Kind, output: string, name: string, args: Record<string, In>, opts?: pulumi.CustomResourceOptions) {
    const [module, type] = kind.split(":");
    super(kind, module, type, name, { ...args, [output]: undefined }, opts);
  }
}

export interface DatabaseArgs {
  subscriptionId: In;
  resourceGroup: In;
  server: In;
  database: In;
}
export interface ElasticPoolArgs {
  subscriptionId: In;
  resourceGroup: In;
  server: In;
  elasticPool: In;
}
export interface WorkspaceArgs {
  subscriptionId: In;
  resourceGroup: In;
  workspace: In;
}

/** The service tier advisors of a database, as the API returned them. */
export class ServiceTierAdvisors extends DataSource {
  declare readonly advisors: pulumi.Output<Record<string, unknown>[]>;
  declare readonly serviceObjective: pulumi.Output<string | undefined>;
  /** `serviceObjective`: the tier the stack intends; carried to the outputs for the tier-drift policy. */
  constructor(name: string, args: DatabaseArgs & { serviceObjective?: In }, opts?: pulumi.CustomResourceOptions) {
    super("sql:ServiceTierAdvisors", "advisors", name, { ...args }, opts);
  }
  static get(name: string, id: In, opts?: pulumi.CustomResourceOptions) {
    return new ServiceTierAdvisors(name, {} as DatabaseArgs, { ...opts, id });
  }
}

/** The activity of an elastic pool. */
export class ElasticPoolActivities extends DataSource {
  declare readonly activities: pulumi.Output<Record<string, unknown>[]>;
  constructor(name: string, args: ElasticPoolArgs, opts?: pulumi.CustomResourceOptions) {
    super("sql:ElasticPoolActivities", "activities", name, { ...args }, opts);
  }
  static get(name: string, id: In, opts?: pulumi.CustomResourceOptions) {
    return new ElasticPoolActivities(name, {} as ElasticPoolArgs, { ...opts, id });
  }
}

/** The database activity of an elastic pool. */
export class ElasticPoolDatabaseActivities extends DataSource {
  declare readonly activities: pulumi.Output<Record<string, unknown>[]>;
  constructor(name: string, args: ElasticPoolArgs, opts?: pulumi.CustomResourceOptions) {
    super("sql:ElasticPoolDatabaseActivities", "activities", name, { ...args }, opts);
  }
  static get(name: string, id: In, opts?: pulumi.CustomResourceOptions) {
    return new ElasticPoolDatabaseActivities(name, {} as ElasticPoolArgs, { ...opts, id });
  }
}

/** The running encryption or decryption scans of a database (operationResults). */
export class TransparentDataEncryptionActivities extends DataSource {
  declare readonly activities: pulumi.Output<Record<string, unknown>[]>;
  constructor(name: string, args: DatabaseArgs, opts?: pulumi.CustomResourceOptions) {
    super("sql:TransparentDataEncryptionActivities", "activities", name, { ...args }, opts);
  }
  static get(name: string, id: In, opts?: pulumi.CustomResourceOptions) {
    return new TransparentDataEncryptionActivities(name, {} as DatabaseArgs, { ...opts, id });
  }
}

/** A Batch AI workspace. */
export class BatchAiWorkspace extends DataSource {
  /** The workspace as the API returned it (the input `workspace` is its name). */
  declare readonly workspaceResource: pulumi.Output<Record<string, unknown>>;
  constructor(name: string, args: WorkspaceArgs, opts?: pulumi.CustomResourceOptions) {
    super("batchai:Workspace", "workspaceResource", name, { ...args }, opts);
  }
  static get(name: string, id: In, opts?: pulumi.CustomResourceOptions) {
    return new BatchAiWorkspace(name, {} as WorkspaceArgs, { ...opts, id });
  }
}

/** A Batch AI cluster (allocation state, node counts). */
export class BatchAiCluster extends DataSource {
  /** The cluster as the API returned it (the input `cluster` is its name). */
  declare readonly clusterResource: pulumi.Output<Record<string, unknown>>;
  constructor(name: string, args: WorkspaceArgs & { cluster: In }, opts?: pulumi.CustomResourceOptions) {
    super("batchai:Cluster", "clusterResource", name, { ...args }, opts);
  }
  static get(name: string, id: In, opts?: pulumi.CustomResourceOptions) {
    return new BatchAiCluster(name, {} as WorkspaceArgs & { cluster: In }, { ...opts, id });
  }
}

/** A Batch AI experiment. */
export class BatchAiExperiment extends DataSource {
  /** The experiment as the API returned it (the input `experiment` is its name). */
  declare readonly experimentResource: pulumi.Output<Record<string, unknown>>;
  constructor(name: string, args: WorkspaceArgs & { experiment: In }, opts?: pulumi.CustomResourceOptions) {
    super("batchai:Experiment", "experimentResource", name, { ...args }, opts);
  }
  static get(name: string, id: In, opts?: pulumi.CustomResourceOptions) {
    return new BatchAiExperiment(name, {} as WorkspaceArgs & { experiment: In }, { ...opts, id });
  }
}

/** A Batch AI file server. */
export class BatchAiFileServer extends DataSource {
  /** The fileServer as the API returned it (the input `fileServer` is its name). */
  declare readonly fileServerResource: pulumi.Output<Record<string, unknown>>;
  constructor(name: string, args: WorkspaceArgs & { fileServer: In }, opts?: pulumi.CustomResourceOptions) {
    super("batchai:FileServer", "fileServerResource", name, { ...args }, opts);
  }
  static get(name: string, id: In, opts?: pulumi.CustomResourceOptions) {
    return new BatchAiFileServer(name, {} as WorkspaceArgs & { fileServer: In }, { ...opts, id });
  }
}

/** All jobs of an experiment, as one data source (one resource per job would cost a plugin round trip each). */
export class BatchAiJobs extends DataSource {
  declare readonly jobs: pulumi.Output<Record<string, unknown>[]>;
  constructor(name: string, args: WorkspaceArgs & { experiment: In }, opts?: pulumi.CustomResourceOptions) {
    super("batchai:Jobs", "jobs", name, { ...args }, opts);
  }
  static get(name: string, id: In, opts?: pulumi.CustomResourceOptions) {
    return new BatchAiJobs(name, {} as WorkspaceArgs & { experiment: In }, { ...opts, id });
  }
}

/** The Batch AI usages (quota use and limits) of a location. */
export class BatchAiUsages extends DataSource {
  declare readonly usages: pulumi.Output<Record<string, unknown>[]>;
  constructor(name: string, args: { subscriptionId: In; location: In }, opts?: pulumi.CustomResourceOptions) {
    super("batchai:Usages", "usages", name, { ...args }, opts);
  }
  static get(name: string, id: In, opts?: pulumi.CustomResourceOptions) {
    return new BatchAiUsages(name, {} as { subscriptionId: In; location: In }, { ...opts, id });
  }
}
