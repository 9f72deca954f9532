// Settings. By default the plugin reads the address and the token from the daemon's own file
// (MNEMO_HOME/daemon.json): nothing secret is stored. A token typed here is kept on this device
// only (localStorage), unless the person chooses to save it in the vault's plugin settings,
// which a sync service copies to other devices.
import { App, PluginSettingTab, Setting } from "obsidian";
import { defaultHome, endpointFile } from "./endpoint";
import type MnemoPlugin from "./main";

export interface MnemoSettings {
  home: string;
  url: string;
  /** Saved only when saveToken is on. */
  token: string;
  saveToken: boolean;
  k: number;
  debounceMs: number;
}

export const DEFAULTS: MnemoSettings = { home: "", url: "", token: "", saveToken: false, k: 10, debounceMs: 1200 };

export class MnemoSettingTab extends PluginSettingTab {
  constructor(app: App, private plugin: MnemoPlugin) {
    super(app, plugin);
  }

  display(): void {
    const { containerEl } = this;
    const s = this.plugin.settings;
    containerEl.empty();
    new Setting(containerEl)
      .setName("mnemo home")
      .setDesc(`Where the daemon keeps daemon.json. Empty: ${defaultHome()} (MNEMO_HOME when set).`)
      .addText((t) => t.setPlaceholder(defaultHome()).setValue(s.home).onChange(async (v) => {
        s.home = v.trim();
        await this.plugin.saveSettings();
      }));
    new Setting(containerEl)
      .setName("API address")
      .setDesc(`Empty: read from ${endpointFile(this.plugin.client.home())}. Only a loopback address makes sense.`)
      .addText((t) => t.setPlaceholder("http://127.0.0.1:PORT").setValue(s.url).onChange(async (v) => {
        s.url = v.trim();
        await this.plugin.saveSettings();
      }));
    new Setting(containerEl)
      .setName("Token")
      .setDesc("Empty: read from daemon.json (recommended). A token typed here stays on this device unless saved below.")
      .addText((t) => {
        t.inputEl.type = "password";
        t.setValue(this.plugin.token()).onChange(async (v) => {
          await this.plugin.setToken(v.trim());
        });
      });
    new Setting(containerEl)
      .setName("Save the token in the vault's settings")
      .setDesc("Off: the token is never written into the vault (a sync service would copy it to every device).")
      .addToggle((t) => t.setValue(s.saveToken).onChange(async (v) => {
        s.saveToken = v;
        await this.plugin.setToken(this.plugin.token());
      }));
    new Setting(containerEl)
      .setName("Results in the pane")
      .addSlider((sl) => sl.setLimits(3, 30, 1).setValue(s.k).setDynamicTooltip().onChange(async (v) => {
        s.k = v;
        await this.plugin.saveSettings();
      }));
  }
}
