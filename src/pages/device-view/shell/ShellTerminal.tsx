import '@xterm/xterm/css/xterm.css';
import { Alert, Box, Button, Group } from '@mantine/core';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { filter } from 'rxjs';
import { Command, newFlowId, Result, type ShellExitReply, type ShellOpenReply, type ShellOutput } from '../../../../protocol/index.ts';
import { askDevice, replyMessage } from '../../../api/device-ops.ts';
import { i18next } from '../../../i18n/index.ts';
import { engine } from '../../../realtime/realtime.ts';

type Status = 'connecting' | 'open' | 'disconnected' | 'no-info';

/** Resizes are sent at most this often while the user drags a window edge. */
const RESIZE_DEBOUNCE_MS = 150;

/**
 * A shell on one device in xterm: one persistent shell flow, lines edited locally and run on the device,
 * output streamed back, the terminal size propagated, and the session re-opened after a reconnect.
 */
export function ShellTerminal({ sn, height = 420 }: { readonly sn: string; readonly height?: number | string }) {
  const { t } = useTranslation();
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | undefined>(undefined);
  const [status, setStatus] = useState<Status>('connecting');
  const [detail, setDetail] = useState<string>();
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const terminal = new Terminal({ convertEol: true, cursorBlink: true, fontSize: 13, scrollback: 5000, theme: { background: '#1e1e1e' } });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(el);
    fit.fit();
    term.current = terminal;
    const flowId = newFlowId('sh');
    const client = engine();
    let info: ShellOpenReply | undefined;
    let cwd = '';
    let line = '';
    let busy = false;
    let disposed = false;
    let wasOpen = false;
    let resizeTimer: ReturnType<typeof setTimeout> | undefined;

    const prompt = () => info && terminal.write(`\x1b[32m${info.prompt}\x1b[0m:\x1b[34m${cwd}\x1b[0m$ `);
    const open = async () => {
      setStatus('connecting');
      terminal.writeln(i18next.t('deviceView.shell.connecting', { sn }));
      try {
        const reply = await askDevice(Command.Shell, sn, { op: 'open', cols: terminal.cols, rows: terminal.rows }, flowId);
        if (disposed) return;
        const data = reply.data as Partial<ShellOpenReply> | undefined;
        if (reply.result !== Result.Success || typeof data?.prompt !== 'string' || typeof data.cwd !== 'string') {
          info = undefined;
          setDetail(reply.result === Result.Success ? undefined : replyMessage(reply));
          setStatus('no-info');
          return;
        }
        info = data as ShellOpenReply;
        cwd = info.cwd;
        setStatus('open');
        terminal.writeln(i18next.t('deviceView.shell.connected', { prompt: info.prompt, cwd }));
        line = '';
        typeahead = '';
        busy = false;
        prompt();
      } catch (err) {
        if (!disposed) {
          setDetail(err instanceof Error ? err.message : String(err));
          setStatus('disconnected');
        }
      }
    };

    const submit = async () => {
      const command = line;
      line = '';
      terminal.write('\r\n');
      if (command.trim() === '') return prompt();
      busy = true;
      try {
        const reply = await askDevice(Command.Shell, sn, { op: 'input', line: command }, flowId);
        if (reply.result === Result.Success) cwd = (reply.data as ShellExitReply).cwd ?? cwd;
        else terminal.writeln(`\x1b[31m${replyMessage(reply)}\x1b[0m`);
      } catch (err) {
        terminal.writeln(`\x1b[31m${err instanceof Error ? err.message : String(err)}\x1b[0m`);
      }
      busy = false;
      prompt();
      const queued = typeahead;
      typeahead = '';
      if (queued) handle(queued);
    };

    const subs = [
      client
        .flow(flowId)
        .pipe(filter((e) => e.msgId === Command.Shell && e.result === undefined))
        .subscribe((e) => {
          const out = e.data as ShellOutput | undefined;
          if (typeof out?.output === 'string') terminal.write(out.stream === 'stderr' ? `\x1b[31m${out.output}\x1b[0m` : out.output);
        }),
      client.connection$.subscribe((state) => {
        if (state.status === 'open') {
          if (!wasOpen) void open();
          wasOpen = true;
        } else if (wasOpen) {
          wasOpen = false;
          info = undefined;
          setStatus('disconnected');
        }
      }),
    ];

    // Keys typed while a command runs are kept and replayed at the next prompt, as a terminal's type-ahead.
    let typeahead = '';
    const handle = (data: string) => {
      if (!info) return;
      for (const ch of data) {
        if (busy) typeahead += ch;
        else if (ch === '\r') void submit();
        else if (ch === '\x7f' || ch === '\b') {
          if (line.length > 0) {
            line = line.slice(0, -1);
            terminal.write('\b \b');
          }
        } else if (ch === '\x03') {
          line = '';
          terminal.write('^C\r\n');
          prompt();
        } else if (ch >= ' ' || ch === '\t') {
          line += ch;
          terminal.write(ch);
        }
      }
    };
    const input = terminal.onData(handle);
    const resized = terminal.onResize(({ cols, rows }) => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => {
        if (info) void askDevice(Command.Shell, sn, { op: 'resize', cols, rows }, flowId).catch(() => undefined);
      }, RESIZE_DEBOUNCE_MS);
    });
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(el);

    return () => {
      disposed = true;
      clearTimeout(resizeTimer);
      observer.disconnect();
      input.dispose();
      resized.dispose();
      subs.forEach((s) => s.unsubscribe());
      if (info) void askDevice(Command.Shell, sn, { op: 'close' }, flowId).catch(() => undefined);
      terminal.dispose();
      term.current = undefined;
    };
  }, [sn]);

  const copy = () => {
    const text = term.current?.getSelection() ?? '';
    void navigator.clipboard?.writeText(text).then(() => {
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    });
  };

  return (
    <Box>
      {status === 'disconnected' && (
        <Alert color="orange" mb="xs" data-testid="shell-disconnected">
          {t('deviceView.shell.disconnected')}
        </Alert>
      )}
      {status === 'no-info' && (
        <Alert color="red" mb="xs" data-testid="shell-no-info">
          {t('deviceView.shell.noInfo')}
          {detail ? `: ${detail}` : ''}
        </Alert>
      )}
      <Group mb="xs" justify="flex-end">
        <Button size="compact-xs" variant="light" onClick={copy}>
          {copied ? t('deviceView.shell.copied') : t('deviceView.shell.copy')}
        </Button>
      </Group>
      <Box ref={host} data-testid="shell-terminal" data-status={status} style={{ height, background: '#1e1e1e', padding: 4 }} />
    </Box>
  );
}
