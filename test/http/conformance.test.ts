import { describeHttpConformance } from '../conformance/http'
import { FRAMEWORKS } from './frameworks'

describeHttpConformance(FRAMEWORKS)
