// Groth16 verifying-key records in the programs of @lightprotocol/zk-compression-cli 0.28.3
// (compression-e2e.md §2, light-vk-records.json). A record is identified by the SHA-256 of Light's
// delta_g2 bytes, so none of Light's key bytes are shipped here. Shape names are zkgate's
// (non-inclusion with a hyphen); the batch keys keep Light's names.

export type LightProgramFile = 'light_system_program_pinocchio.so' | 'account_compression.so';

export interface LightVkRecord {
  shape: string;
  program: LightProgramFile;
  nrPubinputs: number;
  icPoints: number;
  deltaSha256: string;
}

const SYSTEM = 'light_system_program_pinocchio.so';
const COMPRESSION = 'account_compression.so';

// shape, program, nr_pubinputs, IC points, sha256(delta_g2)
// prettier-ignore
const TABLE: readonly [string, LightProgramFile, number, number, string][] = [
  ['v1_combined_26_26_1_1', SYSTEM, 4, 5, '8cd728bc936104c7d52fb031f399aa313d9e1cb172e2d7da981bb7ffa7316dc8'],
  ['v1_combined_26_26_1_2', SYSTEM, 6, 7, 'f6e962c8c3dcfee784102b7cc5a055141e15fb574f46fc7ee202c02c17c2ba1f'],
  ['v1_combined_26_26_2_1', SYSTEM, 6, 7, '490fbf57c1f1bc2c5d784eab47e3a3db30a1a8cd7767d971b56280748e372232'],
  ['v1_combined_26_26_2_2', SYSTEM, 8, 9, '31cbe1e24ec0e61c10056cd563a0c5c7a7ee2f969acfcb9ef46db1ed94a8ba81'],
  ['v1_combined_26_26_3_1', SYSTEM, 8, 9, 'efbf98a19c0b3cebc679bdaef44619f7599003fde8c22e777de9bbff7bf7b5c1'],
  ['v1_combined_26_26_3_2', SYSTEM, 10, 11, '352d19af9ccbf01cce6dc91b38ceca9c226fd401c01bf157ace953cbef8e31df'],
  ['v1_combined_26_26_4_1', SYSTEM, 10, 11, '798fdfe75d6a895ef84e99523c835c454755ae496d0898669224665f4b00c3f0'],
  ['v1_combined_26_26_4_2', SYSTEM, 12, 13, '282f7196c4604e7d2c42a9085982ebedc582fb7a20b161ad0a6c00eeb89946bb'],
  ['v1_inclusion_26_1', SYSTEM, 2, 3, '77756da5f1ba20dc6131821995c87a862fd0ee530ae325f31323f2a746f70bb7'],
  ['v1_inclusion_26_2', SYSTEM, 4, 5, 'b2b246fa4726acc28b3d640b26aed7f1e612402207f70a658c5ea5f58bbc2afe'],
  ['v1_inclusion_26_3', SYSTEM, 6, 7, 'ca1bef61953c301e9a8a9cedc59e3e6b89d2fbd07aea9e713291ffda4824b762'],
  ['v1_inclusion_26_4', SYSTEM, 8, 9, '828881355cc66ccbabe16200c50cfba67308f671d3052ef026c0f9dcf9d79a32'],
  ['v1_inclusion_26_8', SYSTEM, 16, 17, 'd2c9079f4f4d49451ef7436e051d3cd0a7feeb828a20fc538b12f4a3592655fc'],
  ['v1_non-inclusion_26_1', SYSTEM, 2, 3, '98baaebea163eadd7117b0eca84b1191c4772540bd5cc7cfd10c18159f26b5b2'],
  ['v1_non-inclusion_26_2', SYSTEM, 4, 5, 'd599342db874929ffcc2ee5e177266b270b09cac612afb61e04fe4bea05f2876'],
  ['v1_non-inclusion_26_3', SYSTEM, 1, 2, '9be5162ebdc1b938db3fe1a9ea49f92b26bcedef11fedc4686fcffdddecbc5da'],
  ['v1_non-inclusion_26_4', SYSTEM, 1, 2, '5b0f70608f5da551ab025242576d338d1bcd5725e598f63f2f7826801bfb612e'],
  ['v1_non-inclusion_26_8', SYSTEM, 1, 2, 'e664ea0d12ec047e618e893469f4ee41d298da5192b97be906d13cde787b1471'],
  ['v2_combined_32_40_1_1', SYSTEM, 1, 2, '2b0c0311716beaf4b36740d7af12622b130ddf0ca00fa5564b5db4f432a4c317'],
  ['v2_combined_32_40_1_2', SYSTEM, 1, 2, '11f78a0bad66ff573efcfc82a2673c8d58adbc3a2432ae953437ab4948fc6cf5'],
  ['v2_combined_32_40_1_3', SYSTEM, 1, 2, 'bd786bc6dfaedc17dcd5dcc3c824bb647d7a44a7a28a235f0426ca19d5d23268'],
  ['v2_combined_32_40_1_4', SYSTEM, 1, 2, '64f87a986452d434a43fe02f7e56f0ac770702b3bdab4267a3f8e11a9723c06c'],
  ['v2_combined_32_40_2_1', SYSTEM, 1, 2, 'f759c86cc930b40b5a9f05b892e2f4b4cf9ad5e086c400426c92ed48ffd54238'],
  ['v2_combined_32_40_2_2', SYSTEM, 1, 2, '7110da33d17130d94d3f484314c322b2c3dea1e941914f87fd7a2b07456b7c83'],
  ['v2_combined_32_40_2_3', SYSTEM, 1, 2, 'efc89c8d26f775165f0ea9466f93acf76f3dba723d1b95ad89e2292c1ca046b9'],
  ['v2_combined_32_40_2_4', SYSTEM, 1, 2, '5e79529d3e353837958de92eac78f0d6f26d7d7fa745838dac12206df574cd9a'],
  ['v2_combined_32_40_3_1', SYSTEM, 1, 2, '074ff386f58edb6b834b7eb4405c9ecd6209d120423013cf651e53f46122f655'],
  ['v2_combined_32_40_3_2', SYSTEM, 1, 2, '5fd95964b8d55ff1b4d13c9d8197c8016f9ddaa129b4cbe10d9a0373870fae52'],
  ['v2_combined_32_40_3_3', SYSTEM, 1, 2, 'fbbdcf58ca46d80768eae92028f2969cfafdbed45b9098e8cd6394c86092e8e3'],
  ['v2_combined_32_40_3_4', SYSTEM, 1, 2, '2aab5ace999763d54e8ede6b659e84c6f1c363244191f651ef9dce2b046f510c'],
  ['v2_combined_32_40_4_1', SYSTEM, 1, 2, 'e81ad2d6edd463663fd2f52e8116927a33f763e02290198d3a26016237922ed2'],
  ['v2_combined_32_40_4_2', SYSTEM, 1, 2, 'db51fee2fbaf72f11e4472bc089c1eefebd0413f1bb9e3c4036beb6b71ff8d45'],
  ['v2_combined_32_40_4_3', SYSTEM, 1, 2, 'b4d81c6ef1ffb602e81c5030a27c696bf92be60dd98d359f637a0f0f4c2a0a90'],
  ['v2_combined_32_40_4_4', SYSTEM, 1, 2, '83e4e6e8580dc7f8d75c159aed4f90c6bf139c3f306c73f68715a04cb2fdf06c'],
  ['v2_inclusion_32_1', SYSTEM, 1, 2, 'b0b7b528fe478a80ac98e6f5758a9c7367bd95ffaf2f16b61d3942fb0af89c65'],
  ['v2_inclusion_32_10', SYSTEM, 1, 2, 'b87caf3989db75ca1081f00368ecb01db08a91513f73256eed681deca6096bd4'],
  ['v2_inclusion_32_11', SYSTEM, 1, 2, 'b0aa7374793d14eddc3cc17aa983c8cab9b60a32a6001bbf0172c5cec8559429'],
  ['v2_inclusion_32_12', SYSTEM, 1, 2, 'cc274bd57ab44e4c5e2eb2c0cd6bf0309215a48cc6de5f821e2bd081da81b1e7'],
  ['v2_inclusion_32_13', SYSTEM, 1, 2, '9f70ceec7660490ea431422a0872aaf853b8135c92a9a7d1423d50099614c62d'],
  ['v2_inclusion_32_14', SYSTEM, 1, 2, '667e2773fdc7ebef954a3c6751812f7e92cfa93cc574246dc46faf07b956ef3d'],
  ['v2_inclusion_32_15', SYSTEM, 1, 2, '0eaed61b2e995ab45eb65d43c835b4d288c9e315f89bee6d4dbd4a4b2349351d'],
  ['v2_inclusion_32_16', SYSTEM, 1, 2, '62b0ca4467b7b6dbf469b67ceb66cbe8786adbde4cd2f01c45a5b93b9cd2daad'],
  ['v2_inclusion_32_17', SYSTEM, 1, 2, 'dcc5eee47ea52e155f188bc8ac240c90dbfde7311ee3c86baa5e0d75332f4948'],
  ['v2_inclusion_32_18', SYSTEM, 1, 2, '72dbb635d97a5f20b1b42b8be08915ead48cd813f799a5c78b2dcf8c0de02bd2'],
  ['v2_inclusion_32_19', SYSTEM, 1, 2, '2d4ccedc96eb77b4bfe1ae959ad8adc3be79d0b952847a18b5bf38d9f2f984b7'],
  ['v2_inclusion_32_2', SYSTEM, 1, 2, 'c8ec83ce0fabe3a579fa28f4c8b39de4fd37e60ac5fca7f5f8a7f032d5f06248'],
  ['v2_inclusion_32_20', SYSTEM, 1, 2, '25c0362206616c010c766033280b888a97e8d1f023089acc9902caf8cda43072'],
  ['v2_inclusion_32_3', SYSTEM, 1, 2, '78c2ff9519646e6fede8e8714296af86b7cae724457a1117337229e5635bf3bb'],
  ['v2_inclusion_32_4', SYSTEM, 1, 2, '1e7b52f4950982e01540c77afec7c9aed640e145854cade4628b85c71fe120aa'],
  ['v2_inclusion_32_5', SYSTEM, 1, 2, '9e99879c3181dfdd0e73ece05e39c246a5221260051719290455ab7c2a01ad79'],
  ['v2_inclusion_32_6', SYSTEM, 1, 2, 'aedfafba1a28de3cba6c12207d6edaae46b7a6bd951ba74926822f866d48e518'],
  ['v2_inclusion_32_7', SYSTEM, 1, 2, '0ce001a67119c7223e3aba7b8f27552e5bfd2df64849bf22826f2f483c41f51f'],
  ['v2_inclusion_32_8', SYSTEM, 1, 2, '9a448472ce34ef759d936cb3ead50c6adf3cff65346203131188d4bed2b45fdf'],
  ['v2_inclusion_32_9', SYSTEM, 1, 2, 'a4b93ac8e6adec0c9f623f1dbbe5c32215aa573ee7856f0c7da168143286d3ae'],
  ['v2_non-inclusion_40_1', SYSTEM, 1, 2, 'e5ea8634f132fb2095a4b5aadf55bc2db289e9e36aec7ab520c00c7e29e350bb'],
  ['v2_non-inclusion_40_10', SYSTEM, 1, 2, '87735e6d8fc621e5e804e7b4d6b6ce5d7f38d629e26dcc1e0377ecab62ad146d'],
  ['v2_non-inclusion_40_11', SYSTEM, 1, 2, '6f2c11dd4fb9225faf59933252b1ba54a681453601d37df934caa45b79087e27'],
  ['v2_non-inclusion_40_12', SYSTEM, 1, 2, '9b6152bfcbdafb2615b77777b711e545ff5264b271c24f44e52d1da7fb764784'],
  ['v2_non-inclusion_40_13', SYSTEM, 1, 2, '0e3bb384a08fc38b80df84580512a19c8732d3071f889767a57e882e7de17ad7'],
  ['v2_non-inclusion_40_14', SYSTEM, 1, 2, '37e103d3b8948d4c0f142c479642d49a3eee724eb4cde47a877d9e02d4c61d95'],
  ['v2_non-inclusion_40_15', SYSTEM, 1, 2, '4bbd91378ed62df547c1aa6e66ea3357c94a058d7e4323f55caecf259c3269d2'],
  ['v2_non-inclusion_40_16', SYSTEM, 1, 2, 'ccd68d51ad72eb0660678a1f2a17959a0d0c009b0d2c55524d912dabcb41fde7'],
  ['v2_non-inclusion_40_17', SYSTEM, 1, 2, '202a3d1cd60285ac9ce4c11d03d2a7242bb3c6d726ccbcbf9985e0106bf6ea9c'],
  ['v2_non-inclusion_40_18', SYSTEM, 1, 2, 'ac9343308e0d28de7b64c42a57a94f195381e927085046b19f6d6a563355c912'],
  ['v2_non-inclusion_40_19', SYSTEM, 1, 2, '8f16f0c6fbe5fbf457594856952f22dc0371ae2333c6fb15dae942f243aaceef'],
  ['v2_non-inclusion_40_2', SYSTEM, 1, 2, '1a6e0a83fb9a674cbd0463313a43234c05ce9e3010f9debd211ff03f17306d1e'],
  ['v2_non-inclusion_40_20', SYSTEM, 1, 2, 'fc7e79981cdedaeae260685510bd2765c4a69358b1bcce5929658c0740936e7b'],
  ['v2_non-inclusion_40_21', SYSTEM, 1, 2, '74cbe611b40d621c24e981d566b960838c89bffc9f2db0e896b72c59d4328c0d'],
  ['v2_non-inclusion_40_22', SYSTEM, 1, 2, '000f00340432aacfa0ccb2f174fdd606750d3f0b72b8449cdf6a4ad28cb9ca8b'],
  ['v2_non-inclusion_40_23', SYSTEM, 1, 2, 'e258c65261f3decd1591ca5c2c70eb041b8bc1e123662bf31e58615af858ca1a'],
  ['v2_non-inclusion_40_24', SYSTEM, 1, 2, 'b73d2e640f85c522023bb4d48572be9369397bd8898d01aa4cd26092c127d2d0'],
  ['v2_non-inclusion_40_25', SYSTEM, 1, 2, '0577d154a20fc9668c9e21a29bc75f731acdd0972cb634faf28531999d667905'],
  ['v2_non-inclusion_40_26', SYSTEM, 1, 2, '8581e0e4c5f8c41429c0a5c7ec723a60287cfa04a0744900cb8ac5bd0a741f0c'],
  ['v2_non-inclusion_40_27', SYSTEM, 1, 2, '05354d8e91bb535a23c52e2c31a2513b1bc406ca8bdfcd09c3ed7c7e20b07ce6'],
  ['v2_non-inclusion_40_28', SYSTEM, 1, 2, 'bd611ad3ab40b7bee735b9c00973c73e28f0c8ccc8775b1e44b4cc2f9d555eed'],
  ['v2_non-inclusion_40_29', SYSTEM, 1, 2, '8233be9a6581d69022ed4b2624d18ad09c2464eaeffca55415c5c2e20a4960b9'],
  ['v2_non-inclusion_40_3', SYSTEM, 1, 2, 'd65ea356b63c57a8c8d4f2575321432703ee51dd11560f54ab4fb6781989c892'],
  ['v2_non-inclusion_40_30', SYSTEM, 1, 2, '95eca1bf2d001602c624e046148a5403974022612966f5a5629d230260f441a4'],
  ['v2_non-inclusion_40_31', SYSTEM, 1, 2, 'c1ac372bee92a41a8947c7c67e7bdd611d4bbdf2047003f63baefd22b4f00e9f'],
  ['v2_non-inclusion_40_32', SYSTEM, 1, 2, 'bed9afb480b44ffd4b202106320a109ea23bc2ce750185c991668c995a6e76fe'],
  ['v2_non-inclusion_40_4', SYSTEM, 1, 2, 'e2f3259b317eac3a7cf8c6511e79cb04d1cca4443a29e47f542f0055d6b31e12'],
  ['v2_non-inclusion_40_5', SYSTEM, 1, 2, '190fa411896cd7dcc2695e6fb7c9cb087c08cd1331bfdf92003f4e0eef5f80d6'],
  ['v2_non-inclusion_40_6', SYSTEM, 1, 2, 'e2779e709beb45c8053f488dd755974c2eef0e1a1b2004c3a3c315306f13fe8b'],
  ['v2_non-inclusion_40_7', SYSTEM, 1, 2, 'b0c74acaf462da04594e71dc9d163bdd794515f440b34c4774007468515c8073'],
  ['v2_non-inclusion_40_8', SYSTEM, 1, 2, '1f98e04fd8922d219c0b5c2bdc55322ceaa64da55f53dba08c9b0929a2632fa0'],
  ['v2_non-inclusion_40_9', SYSTEM, 1, 2, 'd0bbcbeec048e1a3a2172781e18623aec8176975700fdf0078eee615524b86ad'],
  ['batch_address_append_40_10', COMPRESSION, 1, 2, '0e0276ae68928d2c1bb844ff72aab70cd1a89cc113f1f9f80dc693d894c42b66'],
  ['batch_address_append_40_250', COMPRESSION, 1, 2, '91de1ba1cae858af9313d7ce8e7da1f179b558c36b4b534144766ea00796e953'],
  ['batch_append_32_10', COMPRESSION, 1, 2, '4a1505ca58a3622fae7b87ac9d070be0e60f99032875af68fb2f841622be1286'],
  ['batch_append_32_500', COMPRESSION, 1, 2, '88e0d029a77cdcc7e4d57a31b08c366e08fc7a3dba214cee7a0878f34161a5b7'],
  ['batch_update_32_10', COMPRESSION, 1, 2, '21cfddb077a5704fdff60fe301a123109b4348a68bdedcfcd5d80eb2e13ca5bf'],
  ['batch_update_32_500', COMPRESSION, 1, 2, 'd018d00f90d9572cdaa3a430e88b024321b9c3efd5faf778fa1b97bbb538af63'],
];

export const LIGHT_VK_RECORDS: readonly LightVkRecord[] = TABLE.map(
  ([shape, program, nrPubinputs, icPoints, deltaSha256]) => ({
    shape,
    program,
    nrPubinputs,
    icPoints,
    deltaSha256,
  }),
);
