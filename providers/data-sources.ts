import * as pulumi from "@pulumi/pulumi";
import type * as DataCore from "../src/resources/data-sources";
import type * as Clients from "../src/runtime/azure-clients";
import { isUnknown, loadCore } from "./load-core";

type Kind = DataCore.DataSourceKind;

/**
 * A read-only dynamic provider for one data-source kind: create and read only GET, update re-reads,
 * delete never touches the cloud object, and diff re-reads so a changed answer shows as a change
 * (so `pulumi preview --refresh` and `pulumi refresh` show drift).
 */
export function dataSourceProvider(kind: Kind): pulumi.dynamic.ResourceProvider {
  return {
    async check(_olds, news) {
      const core = loadCore<typeof DataCore>("src/resources/data-sources");
      return { inputs: news, failures: core.checkDataSourceInputs(kind, news, isUnknown) };
    },
    async diff(_id, olds, news) {
      const core = loadCore<typeof DataCore>("src/resources/data-sources");
      const spec = core.DATA_SOURCES[kind];
      const replaces = spec.inputs.filter((k) => olds[k] !== news[k]);
      if (replaces.length) return { changes: true, replaces };
      // An optional input (the intended serviceObjective) is carried to the outputs: a new value is an update.
      if ((spec.optional ?? []).some((k) => olds[k] !== news[k])) return { changes: true };
      if (spec.inputs.some((k) => isUnknown(news[k]))) return { changes: false };
      const clients = loadCore<typeof Clients>("src/runtime/azure-clients").azureClientsFromEnv();
      const fresh = await core.readDataSource(clients, kind, news);
      return { changes: core.dataChanged(kind, olds, fresh.outs) };
    },
    async create(inputs) {
      const core = loadCore<typeof DataCore>("src/resources/data-sources");
      const clients = loadCore<typeof Clients>("src/runtime/azure-clients").azureClientsFromEnv();
      return core.readDataSource(clients, kind, inputs);
    },
    async read(id, props) {
      const core = loadCore<typeof DataCore>("src/resources/data-sources");
      const clients = loadCore<typeof Clients>("src/runtime/azure-clients").azureClientsFromEnv();
      return core.refreshDataSource(clients, kind, id, props);
    },
    async update(_id, _olds, news) {
      const core = loadCore<typeof DataCore>("src/resources/data-sources");
      const clients = loadCore<typeof Clients>("src/runtime/azure-clients").azureClientsFromEnv();
      return { outs: (await core.readDataSource(clients, kind, news)).outs };
    },
    async delete() {
      // A data source only reads: removing it from the stack leaves the cloud object alone.
    },
  };
}

type In = pulumi.Input<string>;

/** Base of every data source: the type token is `pulumi-nodejs:dynamic/<module>:<Type>`. */
abstract class DataSource extends pulumi.dynamic.Resource {
  protected constructor(kind: Kind, output: string, name: string, args: Record<string, In>, opts?: pulumi.CustomResourceOptions) {
    const [module, type] = kind.split(":");
    super(dataSourceProvider(kind), name, { ...args, [output]: undefined }, opts, module, type);
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
