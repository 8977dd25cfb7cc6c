import { describeManagementConformance } from '../conformance/management'
import { DASHBOARD_TARGETS } from './mounts'

describeManagementConformance(DASHBOARD_TARGETS)
