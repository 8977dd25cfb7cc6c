import express5 from 'express'
import express4 from 'express4'
import { describeHostileInput, expressTarget } from './hostile-input'

// The hostile-input suite (test/http/hostile-input.ts) through Express 4 and 5.
describeHostileInput('Express', [expressTarget('express 4', false, express4), expressTarget('express 5', true, express5)])
