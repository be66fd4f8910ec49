import { Button, Modal, Select, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { cardsApi, type DirectionGroup } from '../../api/cards.ts';

/** Directional combos (…D, UPG) are the link cards that take a directional group. */
export function isDirectional(comboType: string): boolean {
  return /D$|^UPG$/.test(comboType);
}

/**
 * Binds a link card to one of the organisation's directional groups, or unbinds it ("No group"); used by the
 * card list and the card detail.
 */
export function BindGroupDialog({ iccid, groupId, onClose, onBound }: { iccid: string; groupId: number | null; onClose: () => void; onBound: () => void }) {
  const { t } = useTranslation();
  const [groups, setGroups] = useState<readonly DirectionGroup[]>();
  const [chosen, setChosen] = useState<string>(groupId === null ? '' : String(groupId));
  useEffect(() => {
    cardsApi.groups(1, 100).then((p) => setGroups(p.list), () => setGroups([]));
  }, []);
  const save = () =>
    void cardsApi.bindGroup(iccid, chosen === '' ? null : Number(chosen)).then(() => {
      onBound();
      onClose();
    }, () => undefined);
  return (
    <Modal opened onClose={onClose} title={t('cards.bindGroupTitle', { iccid })} centered>
      <Stack>
        {groups === undefined ? (
          <Text size="sm" c="dimmed">
            {t('cards.loading')}
          </Text>
        ) : (
          <Select
            label={t('cards.group')}
            data={[{ value: '', label: t('cards.noGroup') }, ...groups.map((g) => ({ value: String(g.id), label: g.name }))]}
            value={chosen}
            onChange={(v) => setChosen(v ?? '')}
            allowDeselect={false}
            data-testid="bind-group-select"
          />
        )}
        <Button onClick={save} disabled={groups === undefined} data-testid="bind-group-save">
          {t('device.confirm')}
        </Button>
      </Stack>
    </Modal>
  );
}
