// How capture output is cut into pictures is tested in h264-access-units.test.ts.
import { describe, expect, it } from 'vitest';
import { screenStreamConfig } from './screen-stream.ts';

describe('live view configuration', () => {
  it('reads the voice command and takes the camera rule as given; both off by default', () => {
    const log = () => undefined;
    const on = screenStreamConfig({ AGENT_STREAM_CMD: 'cap', AGENT_AUDIO_CMD: 'mic' }, log, true);
    expect(on).toMatchObject({ cmd: 'cap', audioCmd: 'mic', hasCamera: true });
    expect(screenStreamConfig({ AGENT_STREAM_CMD: 'cap', AGENT_AUDIO_CMD: '' }, log, false)).toMatchObject({ audioCmd: undefined, hasCamera: false });
  });
});
