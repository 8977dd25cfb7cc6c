import { describeHttpConformance } from '../conformance/http'
import { FETCH_TARGETS } from './targets'

describeHttpConformance(FETCH_TARGETS)
