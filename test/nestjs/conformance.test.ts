import { describeHttpConformance } from '../conformance/http'
import { NEST_TARGETS } from './targets'

describeHttpConformance(NEST_TARGETS)
