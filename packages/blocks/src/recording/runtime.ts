import { defineRuntime } from '../core/define.ts';
import { recordingBlock } from './definition.ts';

export const recordingRuntime = defineRuntime(recordingBlock, {
  compile: (data) => data,
  enter(turn, node) {
    const isFirst = turn.session.recording === null;
    turn.startRecording({
      format: node.config.format,
      analyses: node.config.analyses,
      min_duration_s: node.config.min_duration_s,
      percentage: node.config.percentage,
      anonymization: node.config.anonymization,
    });
    // Chat keeps its history anyway; a voice call is recorded once, from the first recording block.
    if (isFirst && turn.session.channel === 'voice') turn.emit({ type: 'record', format: node.config.format });
    return { exit: 'next' };
  },
});
