import { Button, ColorPicker, Drawer, Group, Stack, Switch, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { changeSetting, layout, resetSettings, setSettingsOpened } from '../state/layout.ts';
import { THEME_SWATCHES } from './theme.ts';

/** The settings panel: theme colour, tags view, fixed header, sidebar logo; stored in localStorage. */
export function SettingsPanel() {
  const { t } = useTranslation();
  const { settingsOpened, settings } = useSnapshot(layout);
  return (
    <Drawer opened={settingsOpened} onClose={() => setSettingsOpened(false)} position="right" size={280} title={t('settings.title')} data-testid="settings-panel">
      <Stack>
        <div>
          <Group justify="space-between" mb={6}>
            <Text size="sm">{t('settings.themeColor')}</Text>
            <Text size="xs" c="dimmed" ff="monospace" data-testid="theme-color">
              {settings.themeColor}
            </Text>
          </Group>
          {/* Keyed by the colour so a reset shows; committed on release, so dragging does not re-theme every frame. */}
          <ColorPicker
            key={settings.themeColor}
            format="hex"
            defaultValue={settings.themeColor}
            onChangeEnd={(color) => changeSetting('themeColor', color)}
            swatches={[...THEME_SWATCHES]}
            swatchesPerRow={8}
            fullWidth
          />
        </div>
        <Switch label={t('settings.tagsView')} checked={settings.tagsView} onChange={(e) => changeSetting('tagsView', e.currentTarget.checked)} />
        <Switch label={t('settings.fixedHeader')} checked={settings.fixedHeader} onChange={(e) => changeSetting('fixedHeader', e.currentTarget.checked)} />
        <Switch label={t('settings.sidebarLogo')} checked={settings.sidebarLogo} onChange={(e) => changeSetting('sidebarLogo', e.currentTarget.checked)} />
        <Button variant="default" onClick={resetSettings}>
          {t('settings.reset')}
        </Button>
      </Stack>
    </Drawer>
  );
}
