/**
 * The dashboard and the management API, framework-neutral: `createDashboard()` (the
 * Settings pages and the JSON API behind one handler), `createManagementApi()` (the API
 * alone) and the one error table. The framework mounts are `dashboard` in
 * `passcode-auth/express`, `passcode-auth/koa`, `passcode-auth/hono` and
 * `passcode-auth/fetch`, `dashboardPlugin` in `passcode-auth/fastify`; for Node's own
 * `http` server with no framework, `nodeDashboard` here.
 *
 * @module passcode-auth/dashboard
 */
import type { NodeDashboardMountOptions } from '../http/node/node-dashboard'
export { createDashboard } from '../http/dashboard/create-dashboard'
export type { Dashboard, DashboardOptions } from '../http/dashboard/create-dashboard'
export { nodeDashboard } from '../http/node/node-dashboard'
export type { NodeDashboardMountOptions } from '../http/node/node-dashboard'
export type { NodeHandler } from '../http/node/node-handlers'
export { createManagementApi } from '../http/management/management-api'
export { isCrossSite } from '../http/management/cross-site'
export type { ManagementApi, ManagementApiOptions } from '../http/management/management-api'
export type { DashboardBody, DashboardRequest, DashboardResponse, DashboardSession, DirectoryUser, SessionResult } from '../http/management/types'
export { MANAGEMENT_ERROR_STATUS, managementErrorAnswer, managementFailure } from '../protocol/management-errors'
export type { ManagementErrorBody, ManagementErrorCode, ManagementFailure } from '../protocol/management-errors'
export type { Actor } from '../core/entities'
export {
  ACCEPTED_PASSCODES_LABELS,
  DELETED_LEAKED_PASSCODE_ADVICE,
  LEAKED_ENABLE_WARNING,
  LEAKED_OVERLAP_REFUSAL,
  LEAKED_PASSCODE_ADVICE,
  LEAKED_USER_PASSCODE_ADVICE,
  STATUS_LABELS,
  statusLabel,
} from '../core/labels'

// The former names, kept so that nothing breaks: each is the same value or type.
/**
 * The options of {@link nodeDashboard} under their former name.
 *
 * @deprecated Use {@link NodeDashboardMountOptions}, named as every adapter names its dashboard options.
 * @example
 * ```ts
 * const options: NodeDashboardOptions = { basePath: '/settings', session: (request) => sessions.get(request.headers.cookie ?? '') }
 * ```
 */
export type NodeDashboardOptions = NodeDashboardMountOptions
