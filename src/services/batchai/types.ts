/**
 * Types of the Batch AI management API, from specs/batchai/BatchAI.json (api-version 2018-05-01).
 * Only what the read operations return is modelled. Every interface keeps an index signature,
 * because real services add properties without notice and the client hands objects on unchanged.
 * Enums are open (`| string`) for the same reason: an unknown value is carried through, with a warning.
 */
export const BATCHAI_SPEC = "batchai/BatchAI.json";
/** The one api-version the client sends and the emulator accepts. */
export const BATCHAI_API_VERSION = "2018-05-01";

/** A workspace's address: the parent of clusters, experiments and file servers. */
export interface WorkspaceRef {
  subscriptionId: string;
  resourceGroup: string;
  workspace: string;
}

/** Operation names, as the spec's operationIds. */
export type BatchAiOperationId =
  | "Operations_List"
  | "Usages_List"
  | "Workspaces_List"
  | "Workspaces_ListByResourceGroup"
  | "Workspaces_Get"
  | "Clusters_ListByWorkspace"
  | "Clusters_Get"
  | "Experiments_ListByWorkspace"
  | "Experiments_Get"
  | "FileServers_ListByWorkspace"
  | "FileServers_Get"
  | "Jobs_ListByExperiment"
  | "Jobs_Get";

type Open<T extends string> = T | (string & {});

/** `#/definitions/Operation`: one entry of the provider's operation list. */
export interface Operation {
  /** `{provider}/{resource}/{operation}`, e.g. `Microsoft.BatchAI/workspaces/read`. */
  name?: string;
  display?: { provider?: string; operation?: string; resource?: string; description?: string; [extra: string]: unknown };
  origin?: string;
  properties?: Record<string, unknown>;
  [extra: string]: unknown;
}

/** `#/definitions/UsageName` */
export interface UsageName {
  value?: string;
  localizedValue?: string;
  [extra: string]: unknown;
}

/** `#/definitions/Usage`: one quota of a location. It carries no id and no location of its own. */
export interface Usage {
  unit?: Open<"Count">;
  currentValue?: number;
  limit?: number;
  name?: UsageName;
  [extra: string]: unknown;
}

export type ProvisioningState = Open<"creating" | "deleting" | "succeeded" | "failed">;
export type FileServerProvisioningState = Open<"creating" | "updating" | "deleting" | "succeeded" | "failed">;
export type AllocationState = Open<"steady" | "resizing">;
export type ExecutionState = Open<"queued" | "running" | "terminating" | "succeeded" | "failed">;
export type VmPriority = Open<"dedicated" | "lowpriority">;
export type DeallocationOption = Open<"requeue" | "terminate" | "waitforjobcompletion">;
export type ToolType = Open<"cntk" | "tensorflow" | "caffe" | "caffe2" | "chainer" | "horovod" | "custommpi" | "custom">;
export type JobPriority = Open<"low" | "normal" | "high">;
export type StorageAccountType = Open<"Standard_LRS" | "Premium_LRS">;
export type CachingType = Open<"none" | "readonly" | "readwrite">;

/** `#/definitions/ResourceId` */
export interface ResourceId {
  id: string;
  [extra: string]: unknown;
}

/** `#/definitions/BatchAIError` */
export interface BatchAiError {
  code?: string;
  message?: string;
  details?: { name?: string; value?: string }[];
  [extra: string]: unknown;
}

/** Common shape of the tracked (`Resource`) and proxy (`ProxyResource`) resources. */
export interface ArmResource {
  id?: string;
  name?: string;
  type?: string;
  [extra: string]: unknown;
}

/** `#/definitions/WorkspaceProperties` */
export interface WorkspaceProperties {
  creationTime?: string;
  provisioningState?: ProvisioningState;
  provisioningStateTransitionTime?: string;
  [extra: string]: unknown;
}

/** `#/definitions/Workspace`: a tracked resource, so it has a location and tags. */
export interface Workspace extends ArmResource {
  location?: string;
  tags?: Record<string, string>;
  properties?: WorkspaceProperties;
}

/** `#/definitions/ManualScaleSettings` */
export interface ManualScaleSettings {
  targetNodeCount: number;
  nodeDeallocationOption?: DeallocationOption;
  [extra: string]: unknown;
}

/** `#/definitions/AutoScaleSettings` */
export interface AutoScaleSettings {
  minimumNodeCount: number;
  maximumNodeCount: number;
  initialNodeCount?: number;
  [extra: string]: unknown;
}

/** `#/definitions/ScaleSettings`: exactly one of `manual` and `autoScale`. */
export interface ScaleSettings {
  manual?: ManualScaleSettings;
  autoScale?: AutoScaleSettings;
  [extra: string]: unknown;
}

/** `#/definitions/NodeStateCounts` */
export interface NodeStateCounts {
  idleNodeCount?: number;
  runningNodeCount?: number;
  preparingNodeCount?: number;
  unusableNodeCount?: number;
  leavingNodeCount?: number;
  [extra: string]: unknown;
}

/** `#/definitions/ImageReference` */
export interface ImageReference {
  publisher: string;
  offer: string;
  sku: string;
  version?: string;
  virtualMachineImageId?: string;
  [extra: string]: unknown;
}

/** `#/definitions/UserAccountSettings` (the service never returns the password). */
export interface UserAccountSettings {
  adminUserName: string;
  adminUserSshPublicKey?: string;
  adminUserPassword?: string;
  [extra: string]: unknown;
}

/** `#/definitions/ClusterProperties` */
export interface ClusterProperties {
  vmSize?: string;
  vmPriority?: VmPriority;
  scaleSettings?: ScaleSettings;
  virtualMachineConfiguration?: { imageReference?: ImageReference; [extra: string]: unknown };
  nodeSetup?: Record<string, unknown>;
  userAccountSettings?: UserAccountSettings;
  subnet?: ResourceId;
  creationTime?: string;
  provisioningState?: ProvisioningState;
  provisioningStateTransitionTime?: string;
  allocationState?: AllocationState;
  allocationStateTransitionTime?: string;
  errors?: BatchAiError[];
  currentNodeCount?: number;
  nodeStateCounts?: NodeStateCounts;
  [extra: string]: unknown;
}

/** `#/definitions/Cluster` */
export interface Cluster extends ArmResource {
  properties?: ClusterProperties;
}

/** `#/definitions/ExperimentProperties` */
export interface ExperimentProperties {
  creationTime?: string;
  provisioningState?: ProvisioningState;
  provisioningStateTransitionTime?: string;
  [extra: string]: unknown;
}

/** `#/definitions/Experiment` */
export interface Experiment extends ArmResource {
  properties?: ExperimentProperties;
}

/** `#/definitions/DataDisks` */
export interface DataDisks {
  diskSizeInGB: number;
  cachingType?: CachingType;
  diskCount: number;
  storageAccountType: StorageAccountType;
  [extra: string]: unknown;
}

/** `#/definitions/MountSettings` */
export interface MountSettings {
  mountPoint?: string;
  fileServerPublicIP?: string;
  fileServerInternalIP?: string;
  [extra: string]: unknown;
}

/** `#/definitions/FileServerProperties` */
export interface FileServerProperties {
  vmSize?: string;
  sshConfiguration?: { publicIPsToAllow?: string[]; userAccountSettings: UserAccountSettings; [extra: string]: unknown };
  dataDisks?: DataDisks;
  subnet?: ResourceId;
  mountSettings?: MountSettings;
  provisioningStateTransitionTime?: string;
  creationTime?: string;
  provisioningState?: FileServerProvisioningState;
  [extra: string]: unknown;
}

/** `#/definitions/FileServer` */
export interface FileServer extends ArmResource {
  properties?: FileServerProperties;
}

/** `#/definitions/OutputDirectory` */
export interface OutputDirectory {
  id: string;
  pathPrefix: string;
  pathSuffix?: string;
  [extra: string]: unknown;
}

/** `#/definitions/JobProperties["executionInfo"]` */
export interface JobExecutionInfo {
  startTime?: string;
  endTime?: string;
  exitCode?: number;
  errors?: BatchAiError[];
  [extra: string]: unknown;
}

/** `#/definitions/JobProperties` (toolkit settings are kept loose: there are ten of them). */
export interface JobProperties {
  schedulingPriority?: JobPriority;
  cluster?: ResourceId;
  mountVolumes?: Record<string, unknown>;
  nodeCount?: number;
  containerSettings?: Record<string, unknown>;
  toolType?: ToolType;
  cntkSettings?: Record<string, unknown>;
  pyTorchSettings?: Record<string, unknown>;
  tensorFlowSettings?: Record<string, unknown>;
  caffeSettings?: Record<string, unknown>;
  caffe2Settings?: Record<string, unknown>;
  chainerSettings?: Record<string, unknown>;
  customToolkitSettings?: { commandLine?: string; [extra: string]: unknown };
  customMpiSettings?: Record<string, unknown>;
  horovodSettings?: Record<string, unknown>;
  jobPreparation?: Record<string, unknown>;
  jobOutputDirectoryPathSegment?: string;
  stdOutErrPathPrefix?: string;
  inputDirectories?: { id: string; path: string; [extra: string]: unknown }[];
  outputDirectories?: OutputDirectory[];
  environmentVariables?: { name: string; value: string; [extra: string]: unknown }[];
  secrets?: Record<string, unknown>[];
  constraints?: { maxWallClockTime?: string; [extra: string]: unknown };
  creationTime?: string;
  provisioningState?: ProvisioningState;
  provisioningStateTransitionTime?: string;
  executionState?: ExecutionState;
  executionStateTransitionTime?: string;
  executionInfo?: JobExecutionInfo;
  [extra: string]: unknown;
}

/** `#/definitions/Job` */
export interface Job extends ArmResource {
  properties?: JobProperties;
}

/** The page shape every list of this API shares (`OperationListResult`, `ListUsagesResult`, `WorkspaceListResult` ...). */
export interface ListResult<T> {
  value?: T[];
  nextLink?: string;
  [extra: string]: unknown;
}
export type OperationListResult = ListResult<Operation>;
export type ListUsagesResult = ListResult<Usage>;
export type WorkspaceListResult = ListResult<Workspace>;
export type ClusterListResult = ListResult<Cluster>;
export type ExperimentListResult = ListResult<Experiment>;
export type FileServerListResult = ListResult<FileServer>;
export type JobListResult = ListResult<Job>;

/** `#/definitions/CloudError`: the body of every failed call that declares a `default` response. */
export interface CloudError {
  error?: { code?: string; message?: string; target?: string; details?: unknown[]; [extra: string]: unknown };
  [extra: string]: unknown;
}
