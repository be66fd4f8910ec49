import { Anchor, Box, Button, Group, Paper, SegmentedControl, Stack, Text, Typography } from '@mantine/core';
import { Marked, type Tokens } from 'marked';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { Link } from 'wouter';
import { switchLanguage } from '../../i18n/index.ts';
import { session } from '../../state/session.ts';
import guideEn from './guide/en.md?raw';
import guideZh from './guide/zh.md?raw';

interface Rendered {
  readonly html: string;
  readonly sections: readonly { id: string; title: string }[];
}

/**
 * The shipped guide as HTML with an id on each section heading. The Markdown is ours, shipped with the
 * console and holding no HTML of its own, so its rendering is shown as it is.
 */
export function renderGuide(markdown: string): Rendered {
  const sections: { id: string; title: string }[] = [];
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      heading(this: { parser: { parseInline: (t: Tokens.Heading['tokens']) => string } }, { tokens, depth, text }: Tokens.Heading) {
        const inner = this.parser.parseInline(tokens);
        if (depth !== 2) return `<h${depth}>${inner}</h${depth}>\n`;
        const id = `section-${sections.length + 1}`;
        sections.push({ id, title: text });
        return `<h2 id="${id}">${inner}</h2>\n`;
      },
    },
  });
  const html = marked.parse(markdown, { async: false });
  return { html, sections };
}

/** /gitbook and /Introduction/: the product guide in the page's language, readable without a session. */
export function GuidePage() {
  const { t, i18n } = useTranslation();
  const signedIn = Boolean(useSnapshot(session).token);
  const { html, sections } = useMemo(() => renderGuide(i18n.language === 'zh' ? guideZh : guideEn), [i18n.language]);
  return (
    <Group align="flex-start" wrap="nowrap" gap="xl" data-testid="guide">
      <Box component="nav" w={220} style={{ position: 'sticky', top: 24, flexShrink: 0 }} visibleFrom="sm">
        <Stack gap={6}>
          {/* The guide is read without a session, so it offers the language itself (reloads, as the top bar's). */}
          <SegmentedControl
            size="xs"
            mb="sm"
            value={i18n.language === 'zh' ? 'zh' : 'en'}
            onChange={(v) => switchLanguage(v === 'zh' ? 'zh' : 'en')}
            data={[
              { value: 'zh', label: '中文' },
              { value: 'en', label: 'English' },
            ]}
            data-testid="guide-language"
          />
          <Text fw={700} size="sm">
            {t('publicPages.contents')}
          </Text>
          {sections.map((s) => (
            <Anchor key={s.id} href={`#${s.id}`} size="sm" data-testid="guide-toc">
              {s.title}
            </Anchor>
          ))}
          <Button component={Link} href={signedIn ? '/dashboard/index' : '/login'} mt="md" size="xs" variant="light" data-testid="guide-console">
            {t(signedIn ? 'publicPages.openConsole' : 'publicPages.signIn')}
          </Button>
        </Stack>
      </Box>
      <Paper withBorder p="xl" style={{ flex: 1, minWidth: 0 }}>
        <Typography>
          {/* Our own shipped Markdown (see renderGuide), not user input. */}
          <div dangerouslySetInnerHTML={{ __html: html }} data-testid="guide-content" />
        </Typography>
      </Paper>
    </Group>
  );
}

/** /Introduction/ opens the same guide. */
export const IntroductionPage = GuidePage;
