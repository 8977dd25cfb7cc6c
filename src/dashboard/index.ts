export { createDashboard } from '../http/dashboard/create-dashboard'
export type { Dashboard, DashboardOptions } from '../http/dashboard/create-dashboard'
export { createManagementApi } from '../http/management/management-api'
export type { ManagementApi, ManagementApiOptions } from '../http/management/management-api'
export type {
  DashboardBody,
  DashboardRequest,
  DashboardResponse,
  DashboardSession,
  DirectoryUser,
  SessionResult,
} from '../http/management/types'
export { MANAGEMENT_ERROR_STATUS, managementErrorAnswer, managementFailure } from '../protocol/management-errors'
export type { ManagementErrorBody, ManagementErrorCode, ManagementFailure } from '../protocol/management-errors'
export type { Actor } from '../core/entities'
