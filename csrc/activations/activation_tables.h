#pragma once
// Written by tools/fit_activation_tables.py; do not edit. Functions F(a), 0 <= a <= (kIntervals - 1/2) w,
// each in interval k (a = k w + d, |d| <= w/2) the polynomial sum_j c_j d^j, one row of kCoefficients a
// coefficient: c_0, c_1, ... or, where kSplitConstant, c_0's high and low floats, then c_1, ... Relative
// minimax fits.

namespace uaccel::math {

// Phi(-a) - a phi(a), GELU's derivative at -a (1 minus it at a): degree 6, w = 0.25.
struct GeluDerivativeTable {
  static constexpr int kIntervals = 32;
  static constexpr int kDegree = 6;
  static constexpr float kWidth = 0.25f;
  static constexpr bool kSplitConstant = false;
  alignas(64) static constexpr float kCoefficients[7][32] = {
      // constant
      {0x1p-1f,          0x1.37f00cp-2f,   0x1.0f5eb8p-3f,   0x1.95f1dep-11f,  -0x1.55429ap-4f,  -0x1.f66bfep-4f,
       -0x1.050e92p-3f,  -0x1.c65a8p-4f,   -0x1.5d1c06p-4f,  -0x1.e4e1e4p-5f,  -0x1.341c2ap-5f,  -0x1.68e62cp-6f,
       -0x1.876f5ap-7f,  -0x1.8a5ae8p-8f,  -0x1.71da9p-9f,   -0x1.437006p-10f, -0x1.080eb6p-11f, -0x1.92e552p-13f,
       -0x1.1f6eap-14f,  -0x1.7fbf1ep-16f, -0x1.df9f9ap-18f, -0x1.18b3ep-19f,  -0x1.33d04p-21f,  -0x1.3c4fe8p-23f,
       -0x1.30ac86p-25f, -0x1.1320d6p-27f, -0x1.d1eeb2p-30f, -0x1.7200e2p-32f, -0x1.13989p-34f,  -0x1.8121p-37f,
       -0x1.f8eb4ep-40f, -0x1.368cb8p-42f},
      // d^1
      {-0x1.988454p-1f, -0x1.7f9324p-1f, -0x1.3b7356p-1f, -0x1.bb4638p-2f, -0x1.ef8e58p-3f, -0x1.474ea2p-4f,
       0x1.094088p-5f,  0x1.777a98p-4f,  0x1.ba4b44p-4f,  0x1.8e2466p-4f,  0x1.3121f6p-4f,  0x1.9e601ep-5f,
       0x1.fc47a2p-6f,  0x1.1ca6aep-6f,  0x1.251c14p-7f,  0x1.16bc9cp-8f,  0x1.eb28b8p-10f, 0x1.91db48p-11f,
       0x1.31df8p-12f,  0x1.b1c592p-14f, 0x1.1ed83cp-15f, 0x1.621d12p-17f, 0x1.985a14p-19f, 0x1.b82298p-21f,
       0x1.bba0b6p-23f, 0x1.a2550ep-25f, 0x1.7131f6p-27f, 0x1.310b5cp-29f, 0x1.d80ebp-32f,  0x1.5622dep-34f,
       0x1.d0a79ep-37f, 0x1.27ac9p-39f},
      // d^2
      {0x1.5111ecp-19f,  0x1.85c3bcp-3f,   0x1.51fa2ap-2f,   0x1.8d805cp-2f,   0x1.73aa6cp-2f,   0x1.1ceebep-2f,
       0x1.5c2742p-3f,   0x1.21e482p-4f,   0x1.3d418ap-19f,  -0x1.36cabap-5f,  -0x1.93da18p-5f,  -0x1.6ce85cp-5f,
       -0x1.104afap-5f,  -0x1.62832cp-6f,  -0x1.9cdbecp-7f,  -0x1.b3fab6p-8f,  -0x1.a4fee4p-9f,  -0x1.75cfp-10f,
       -0x1.3265ccp-11f, -0x1.d1006cp-13f, -0x1.47605ap-14f, -0x1.ac68e4p-16f, -0x1.04dd7cp-17f, -0x1.27fa28p-19f,
       -0x1.39257ep-21f, -0x1.352e9ap-23f, -0x1.1d0f9cp-25f, -0x1.eb1e44p-28f, -0x1.8b764ep-30f, -0x1.29c912p-32f,
       -0x1.a388d4p-35f, -0x1.148d3cp-37f},
      // d^3
      {0x1.10406ap-2f,  0x1.d6b284p-3f,  0x1.15e62ep-3f,  0x1.378deep-6f,  -0x1.4a6092p-4f, -0x1.184dd8p-3f,
       -0x1.27a6c2p-3f, -0x1.daa35p-4f,  -0x1.26df0ep-4f, -0x1.f76cdep-6f, -0x1.075146p-9f, 0x1.99ea3ap-7f,
       0x1.0a3f2p-6f,   0x1.cd4c66p-7f,  0x1.459566p-7f,  0x1.8de7cep-8f,  0x1.b0b176p-9f,  0x1.a8ee16p-10f,
       0x1.7c5596p-11f, 0x1.3824c4p-12f, 0x1.d7d3eap-14f, 0x1.496cb6p-15f, 0x1.a9f9cap-17f, 0x1.ff0aa2p-19f,
       0x1.1cd686p-20f, 0x1.2765d8p-22f, 0x1.1d4c2ap-24f, 0x1.00d45cp-26f, 0x1.af5112p-29f, 0x1.520832p-31f,
       0x1.eecdacp-34f, 0x1.52592ep-36f},
      // d^4
      {0x1.7a35cep-10f,  -0x1.1ea97ep-4f,  -0x1.c88e4p-4f,   -0x1.d381e8p-4f,  -0x1.49903cp-4f,  -0x1.fb2c6p-6f,
       0x1.a65eap-7f,    0x1.44de4p-5f,    0x1.6d93ecp-5f,   0x1.2580dcp-5f,   0x1.5d98eep-6f,   0x1.11b792p-7f,
       0x1.c6d956p-20f,  -0x1.e5260cp-9f,  -0x1.14d7c2p-8f,  -0x1.b86c48p-9f,  -0x1.1e32acp-9f,  -0x1.427948p-10f,
       -0x1.428122p-11f, -0x1.232958p-12f, -0x1.de2d96p-14f, -0x1.678812p-15f, -0x1.f14fd8p-17f, -0x1.3d482ap-18f,
       -0x1.767bc4p-20f, -0x1.999f76p-22f, -0x1.9fe32cp-24f, -0x1.887466p-26f, -0x1.5894dap-28f, -0x1.19c0eap-30f,
       -0x1.ad7368p-33f, -0x1.313c8p-35f},
      // d^5
      {-0x1.205aa2p-4f, -0x1.861ecp-5f,   -0x1.2dc75ep-6f, 0x1.dcd24cp-7f,  0x1.294012p-5f,  0x1.48900ep-5f,
       0x1.e30f22p-6f,  0x1.8c7034p-7f,   -0x1.46b03p-9f,  -0x1.5b3fe4p-7f, -0x1.7db848p-7f, -0x1.1d456ap-7f,
       -0x1.325bfap-8f, -0x1.7bc50cp-10f, 0x1.3ab4a8p-12f, 0x1.e2564cp-11f, 0x1.d0667cp-11f, 0x1.487d68p-11f,
       0x1.818ep-12f,   0x1.8aac16p-13f,  0x1.67981cp-14f, 0x1.27d7bap-15f, 0x1.bae6ccp-17f, 0x1.2f7e2ap-18f,
       0x1.7e525p-20f,  0x1.bc112ap-22f,  0x1.dcc41ap-24f, 0x1.da09cp-26f,  0x1.b52cdcp-28f, 0x1.76946ap-30f,
       0x1.2a6768p-32f, 0x1.ba83fp-35f},
      // d^6
      {0x1.efacf4p-6f,   0x1.918b98p-6f,   -0x1.6598bap-7f,  0x1.3cdc42p-6f,   0x1.30c238p-10f,  -0x1.9047aep-9f,
       0x1.45ad26p-6f,   -0x1.4ed4d8p-7f,  0x1.a5b89ep-8f,   -0x1.6389fp-11f,  0x1.18540ap-10f,  0x1.deecaap-10f,
       0x1.465aecp-9f,   0x1.51f048p-9f,   0x1.67b5c2p-13f,  -0x1.6b9b3ep-16f, -0x1.d03d86p-13f, -0x1.857b8cp-13f,
       -0x1.43b794p-13f, -0x1.75244p-14f,  -0x1.8965e8p-15f, -0x1.6b0308p-16f, -0x1.27a14ap-17f, -0x1.b6f9dap-19f,
       -0x1.27dc1p-20f,  -0x1.6d047cp-22f, -0x1.9e3b0ep-24f, -0x1.b11a1cp-26f, -0x1.a26684p-28f, -0x1.7685dap-30f,
       -0x1.36a49cp-32f, -0x1.deb1a4p-35f},
  };
};

// a Phi(-a), GELU's negative side (gelu(-a) = -a Phi(-a)): degree 6, w = 0.25.
struct GeluTable {
  static constexpr int kIntervals = 32;
  static constexpr int kDegree = 6;
  static constexpr float kWidth = 0.25f;
  static constexpr bool kSplitConstant = false;
  alignas(64) static constexpr float kCoefficients[7][32] = {
      // constant
      {0x0p+0f,         0x1.9aecbap-4f,  0x1.3bf144p-3f,  0x1.5c198p-3f,   0x1.44ed0cp-3f,  0x1.0e76a2p-3f,
       0x1.9a76a4p-4f,  0x1.1f24ep-4f,   0x1.74bcf8p-5f,  0x1.c2a49ap-6f,  0x1.fcb21ep-7f,  0x1.0c832ep-7f,
       0x1.096698p-8f,  0x1.eb9b5cp-10f, 0x1.aae05p-11f,  0x1.5babcp-12f,  0x1.09ad7ap-13f, 0x1.7d1018p-15f,
       0x1.008408p-16f, 0x1.443672p-18f, 0x1.80bcbcp-20f, 0x1.acb3ep-22f,  0x1.c093dap-24f, 0x1.b8cadap-26f,
       0x1.96c96ap-28f, 0x1.609384p-30f, 0x1.1f0442p-32f, 0x1.b6e7c6p-35f, 0x1.3b34bcp-37f, 0x1.a9408p-40f,
       0x1.0d7278p-42f, 0x1.40bb6ap-45f},
      // d^1
      {0x1p-1f,          0x1.37f00cp-2f,   0x1.0f5eb8p-3f,   0x1.95f1dep-11f,  -0x1.55429ap-4f,  -0x1.f66bfcp-4f,
       -0x1.050e92p-3f,  -0x1.c65a8p-4f,   -0x1.5d1c06p-4f,  -0x1.e4e1e4p-5f,  -0x1.341c2ap-5f,  -0x1.68e62cp-6f,
       -0x1.876f5ap-7f,  -0x1.8a5ae8p-8f,  -0x1.71da9p-9f,   -0x1.437006p-10f, -0x1.080eb8p-11f, -0x1.92e552p-13f,
       -0x1.1f6ea2p-14f, -0x1.7fbf22p-16f, -0x1.df9fap-18f,  -0x1.18b3ecp-19f, -0x1.33d05p-21f,  -0x1.3c5002p-23f,
       -0x1.30aca6p-25f, -0x1.1320fcp-27f, -0x1.d1ef06p-30f, -0x1.720138p-32f, -0x1.1398e4p-34f, -0x1.812192p-37f,
       -0x1.f8ec3ap-40f, -0x1.368d6ap-42f},
      // d^2
      {-0x1.988454p-2f, -0x1.7f9296p-2f, -0x1.3b73e6p-2f, -0x1.bb4526p-3f, -0x1.ef90b6p-4f, -0x1.4742b2p-5f,
       0x1.0945a6p-6f,  0x1.777718p-5f,  0x1.ba4bfep-5f,  0x1.8e2278p-5f,  0x1.3122dp-5f,   0x1.9e60a2p-6f,
       0x1.fc4712p-7f,  0x1.1ca6aap-7f,  0x1.251c16p-8f,  0x1.16bd08p-9f,  0x1.eb282p-11f,  0x1.91db78p-12f,
       0x1.31defap-13f, 0x1.b1c584p-15f, 0x1.1ed808p-16f, 0x1.621ccp-18f,  0x1.985992p-20f, 0x1.b821c6p-22f,
       0x1.bb9f88p-24f, 0x1.a25392p-26f, 0x1.71303p-28f,  0x1.310958p-30f, 0x1.d80ac4p-33f, 0x1.561f3p-35f,
       0x1.d0a164p-38f, 0x1.27a7a2p-40f},
      // d^3
      {0x1.c06ab6p-21f,  0x1.03da18p-4f,   0x1.c2a232p-4f,   0x1.09002cp-3f,   0x1.ef8e4ep-4f,   0x1.7be48ep-4f,
       0x1.d03304p-5f,   0x1.828a6ep-6f,   0x1.212974p-21f,  -0x1.9e5d78p-7f,  -0x1.0d3d9ep-6f,  -0x1.e68c5p-7f,
       -0x1.6b0e3ap-7f,  -0x1.d8afa2p-8f,  -0x1.133d6p-8f,   -0x1.22a7b6p-9f,  -0x1.18a842p-10f, -0x1.f268fap-12f,
       -0x1.988514p-13f, -0x1.35fdc2p-14f, -0x1.b47b5ep-16f, -0x1.1d956ap-17f, -0x1.5bc90cp-19f, -0x1.8a9564p-21f,
       -0x1.a175bp-23f,  -0x1.9c28a4p-25f, -0x1.7bfcb8p-27f, -0x1.475088p-29f, -0x1.078c08p-31f, -0x1.8ce17p-34f,
       -0x1.178d9p-36f,  -0x1.708706p-39f},
      // d^4
      {0x1.104436p-4f,  0x1.d444f6p-5f,  0x1.18a59ep-5f,  0x1.21e614p-8f,  -0x1.4470f8p-6f,  -0x1.1f988cp-5f,
       -0x1.293f38p-5f, -0x1.d6645ap-6f, -0x1.27c384p-6f, -0x1.ee5008p-8f, -0x1.273b3ap-11f, 0x1.977e74p-9f,
       0x1.0adep-8f,    0x1.cd5138p-9f,  0x1.4592f4p-9f,  0x1.8d7018p-10f, 0x1.b10114p-11f,  0x1.a8da52p-12f,
       0x1.7ca6c6p-13f, 0x1.382cfcp-14f, 0x1.d7f50cp-16f, 0x1.4987a6p-17f, 0x1.aa269ap-19f,  0x1.ff50fep-21f,
       0x1.1d094p-22f,  0x1.27a65ep-24f, 0x1.1d98fcp-26f, 0x1.0129ccp-28f, 0x1.aff8fep-31f,  0x1.52a566p-33f,
       0x1.efd93p-36f,  0x1.532d92p-38f},
      // d^5
      {0x1.638d3ep-13f,  -0x1.cf3116p-7f,  -0x1.6c8826p-6f,  -0x1.754718p-6f,  -0x1.083c44p-6f,  -0x1.8161bap-8f,
       0x1.5e4204p-9f,   0x1.0018e2p-7f,   0x1.2598f8p-7f,   0x1.d1254cp-8f,   0x1.19fea4p-8f,   0x1.ba1752p-10f,
       0x1.ebf658p-21f,  -0x1.7fb12cp-11f, -0x1.ba87f2p-11f, -0x1.5f9916p-11f, -0x1.cbfffep-12f, -0x1.027b38p-12f,
       -0x1.035c6ap-13f, -0x1.d4a5ecp-15f, -0x1.8176a6p-16f, -0x1.228506p-17f, -0x1.9273eap-19f, -0x1.0141fcp-20f,
       -0x1.302a94p-22f, -0x1.4d53p-24f,   -0x1.531094p-26f, -0x1.40966ep-28f, -0x1.1a106ap-30f, -0x1.ce335ap-33f,
       -0x1.60f902p-35f, -0x1.f6d0fap-38f},
      // d^6
      {-0x1.572328p-7f, 0x1.57631p-9f,    -0x1.0a0272p-6f, 0x1.03421cp-6f,  -0x1.171ac8p-7f, 0x1.54b2c6p-5f,
       0x1.a009e4p-7f,  -0x1.084bp-7f,    0x1.c4cf8ep-10f, -0x1.cd439ap-8f, 0x1.6d3dd4p-12f, -0x1.8c468cp-11f,
       -0x1.25198p-10f, -0x1.fe53dep-13f, 0x1.b9a198p-15f, 0x1.c74536p-13f, 0x1.0b0518p-13f, 0x1.be52aep-14f,
       0x1.d0fep-15f,   0x1.03dea2p-15f,  0x1.d4bdcap-17f, 0x1.81c062p-18f, 0x1.1fd75cp-19f, 0x1.891d2cp-21f,
       0x1.ed191ap-23f, 0x1.1d667ep-24f,  0x1.312deep-26f, 0x1.2e0c7cp-28f, 0x1.15a8eep-30f, 0x1.d9a0dcp-33f,
       0x1.77d94cp-35f, 0x1.157e5p-37f},
  };
};

// a sigmoid(-a) = a / (1 + e^a), SiLU's negative side (silu(-a) = -a sigmoid(-a)): degree 4, w = 0.25.
struct SiluTable {
  static constexpr int kIntervals = 32;
  static constexpr int kDegree = 4;
  static constexpr float kWidth = 0.25f;
  static constexpr bool kSplitConstant = false;
  alignas(64) static constexpr float kCoefficients[5][32] = {
      // constant
      {0x0p+0f,        0x1.c054cep-4f, 0x1.829a06p-3f, 0x1.ecc812p-3f, 0x1.136562p-2f, 0x1.1d0e62p-2f, 0x1.1834a2p-2f,
       0x1.094cf2p-2f, 0x1.e84152p-3f, 0x1.b75ecep-3f, 0x1.8464d6p-3f, 0x1.526874p-3f, 0x1.236272p-3f, 0x1.f0e542p-4f,
       0x1.a4385cp-4f, 0x1.60eeb2p-4f, 0x1.26afa2p-4f, 0x1.e9a3a6p-5f, 0x1.9505ccp-5f, 0x1.4dc462p-5f, 0x1.1223ap-5f,
       0x1.c103acp-6f, 0x1.6ec4acp-6f, 0x1.2ae462p-6f, 0x1.e62332p-7f, 0x1.8a9862p-7f, 0x1.3fbd64p-7f, 0x1.02ad4ep-7f,
       0x1.a1f252p-8f, 0x1.5130ap-8f,  0x1.0fb3a6p-8f, 0x1.b55d04p-9f},
      // d^1
      {0x1p-1f,         0x1.815238p-2f,  0x1.0a47b6p-2f,  0x1.425b2ep-3f,  0x1.284336p-4f,  0x1.9e2524p-8f,
       -0x1.52481ep-5f, -0x1.29b166p-4f, -0x1.73da2ep-4f, -0x1.9466ecp-4f, -0x1.9725a6p-4f, -0x1.86089ep-4f,
       -0x1.68dfd8p-4f, -0x1.4575p-4f,   -0x1.1fd6f4p-4f, -0x1.f56a5ep-5f, -0x1.af6dbcp-5f, -0x1.6f8b3ep-5f,
       -0x1.369152p-5f, -0x1.04a332p-5f, -0x1.b2f4p-6f,   -0x1.6924d6p-6f, -0x1.2a971ep-6f, -0x1.ebecd8p-7f,
       -0x1.93e99cp-7f, -0x1.4ab322p-7f, -0x1.0e11bp-7f,  -0x1.b81a96p-8f, -0x1.65dbfp-8f,  -0x1.227112p-8f,
       -0x1.d6a63ap-9f, -0x1.7cbdb6p-9f},
      // d^2
      {-0x1.00001p-2f,  -0x1.f03fbcp-3f, -0x1.c3d22ep-3f, -0x1.82483p-3f,  -0x1.35a08cp-3f, -0x1.cf457ap-4f,
       -0x1.3fe33p-4f,  -0x1.8cd008p-5f, -0x1.9a14aap-6f, -0x1.fa22c6p-8f, 0x1.153c02p-8f,  0x1.842b4cp-7f,
       0x1.08cddcp-6f,  0x1.288718p-6f,  0x1.2dc9dp-6f,   0x1.2223fep-6f,  0x1.0c9094p-6f,  0x1.e3f974p-7f,
       0x1.ab7d42p-7f,  0x1.73c8ep-7f,   0x1.3f7ffcp-7f,  0x1.0fd6p-7f,    0x1.caf324p-8f,  0x1.80d05ep-8f,
       0x1.40e74p-8f,   0x1.0a4d8cp-8f,  0x1.b823ecp-9f,  0x1.6a685ap-9f,  0x1.297f4p-9f,   0x1.e710b2p-10f,
       0x1.8dade8p-10f, 0x1.43f818p-10f},
      // d^3
      {0x1.4289b4p-17f,  0x1.49e5c8p-6f,   0x1.2cbc5ep-5f,   0x1.838656p-5f,   0x1.a3b16cp-5f,   0x1.9425d6p-5f,
       0x1.63b804p-5f,   0x1.22552p-5f,    0x1.bafa7p-6f,    0x1.3c7e5ep-6f,   0x1.a45ddep-7f,   0x1.fbd86cp-8f,
       0x1.05975cp-8f,   0x1.669cc4p-10f,  -0x1.7e1c8cp-12f, -0x1.7578cap-10f, -0x1.074a9cp-9f,  -0x1.28cf6cp-9f,
       -0x1.2dea9ap-9f,  -0x1.2188bap-9f,  -0x1.0b51a4p-9f,  -0x1.e06bc6p-10f, -0x1.a76dcep-10f, -0x1.6f8898p-10f,
       -0x1.3b5e7ep-10f, -0x1.0c04bcp-10f, -0x1.c40c1ap-11f, -0x1.7ab702p-11f, -0x1.3ba3a4p-11f, -0x1.05cdbep-11f,
       -0x1.b09096p-12f, -0x1.640caap-12f},
      // d^4
      {0x1.53caaep-6f,  0x1.36d662p-6f,  0x1.c868ccp-7f,   0x1.dc5e92p-8f,   0x1.b9c4dcp-11f,  -0x1.14084ep-8f,
       -0x1.dfea0cp-8f, -0x1.1db286p-7f, -0x1.0f8444p-7f,  -0x1.d5c0eap-8f,  -0x1.78debep-8f,  -0x1.1e105p-8f,
       -0x1.a6eeb8p-9f, -0x1.144e96p-9f, -0x1.580b36p-10f, -0x1.9dbd92p-11f, -0x1.9c6978p-12f, -0x1.a388a4p-14f,
       0x1.4cf4cep-16f, 0x1.59eb82p-13f, 0x1.3c5cf6p-13f,  0x1.ed9be2p-13f,  0x1.c6a86p-13f,   0x1.e44768p-13f,
       0x1.7a3f48p-13f, 0x1.4da19ep-13f, 0x1.35fdc4p-13f,  0x1.22ff6ep-13f,  0x1.d78a3cp-14f,  0x1.75da3p-14f,
       0x1.4a787ap-14f, 0x1.1f578ep-14f},
  };
};

// sigmoid(-a), for SiLU's derivative: degree 5, w = 0.25.
struct SigmoidTable {
  static constexpr int kIntervals = 32;
  static constexpr int kDegree = 5;
  static constexpr float kWidth = 0.25f;
  static constexpr bool kSplitConstant = true;
  alignas(64) static constexpr float kCoefficients[7][32] = {
      // constant's high part
      {0x1p-1f,         0x1.c054cep-2f,  0x1.829a06p-2f,  0x1.488562p-2f,  0x1.136562p-2f,  0x1.c81702p-3f,
       0x1.759b84p-3f,  0x1.2f335ep-3f,  0x1.e84152p-4f,  0x1.868d2ap-4f,  0x1.36b712p-4f,  0x1.ec3ad6p-5f,
       0x1.848344p-5f,  0x1.31c828p-5f,  0x1.e04068p-6f,  0x1.787614p-6f,  0x1.26afa2p-6f,  0x1.ccd642p-7f,
       0x1.680528p-7f,  0x1.19112ap-7f,  0x1.b69f68p-8f,  0x1.561b2ep-8f,  0x1.0abd94p-8f,  0x1.9fd992p-9f,
       0x1.441778p-9f,  0x1.f914fap-10f, 0x1.8986a2p-10f, 0x1.329482p-10f, 0x1.dda738p-11f, 0x1.74125ap-11f,
       0x1.21d0b2p-11f, 0x1.c378cap-12f},
      // constant's low part
      {-0x1.1e4p-42f,    -0x1.5b053cp-28f, -0x1.325494p-27f, -0x1.e64956p-27f, -0x1.73994cp-27f, 0x1.52d56p-28f,
       -0x1.54abd6p-28f, 0x1.1c06c6p-28f,  0x1.72d234p-29f,  -0x1.d4cf7cp-29f, -0x1.b7c45cp-29f, 0x1.57f6c2p-30f,
       -0x1.bffc14p-32f, 0x1.8b6ce8p-34f,  0x1.c38dbcp-34f,  -0x1.d8792ep-31f, -0x1.bb8cdcp-34f, -0x1.c899a4p-32f,
       -0x1.6e399ap-33f, -0x1.535624p-33f, -0x1.47a202p-35f, -0x1.b9801p-33f,  0x1.879b66p-34f,  0x1.a2849p-37f,
       -0x1.9efac6p-34f, -0x1.0d7e54p-35f, 0x1.97c3d4p-35f,  -0x1.4460a2p-35f, 0x1.5eaf28p-36f,  -0x1.8298d2p-36f,
       -0x1.501f32p-36f, -0x1.527648p-37f},
      // d^1
      {-0x1p-2f,         -0x1.f81526p-3f,  -0x1.e149ap-3f,   -0x1.be3fbap-3f,  -0x1.92a946p-3f,  -0x1.6284c4p-3f,
       -0x1.3173b2p-3f,  -0x1.02500ap-3f,  -0x1.ae0dc2p-4f,  -0x1.615002p-4f,  -0x1.1f2514p-4f,  -0x1.cea744p-5f,
       -0x1.721652p-5f,  -0x1.265e34p-5f,  -0x1.d22ca2p-6f,  -0x1.6fcfa6p-6f,  -0x1.2162c2p-6f,  -0x1.c65b1cp-7f,
       -0x1.64108ap-7f,  -0x1.16a7fcp-7f,  -0x1.b3afe2p-8f,  -0x1.5452p-8f,    -0x1.09a7a6p-8f,  -0x1.9e87dp-9f,
       -0x1.434a52p-9f,  -0x1.f81bd8p-10f, -0x1.88ef68p-10f, -0x1.3238b8p-10f, -0x1.dd37d2p-11f, -0x1.73cecp-11f,
       -0x1.21a7aep-11f, -0x1.c34706p-12f},
      // d^2
      {-0x1.223a2cp-29f, 0x1.f578eep-7f,  0x1.d78112p-6f,  0x1.3fd52cp-5f,  0x1.742728p-5f, 0x1.893b5p-5f,
       0x1.8403d4p-5f,   0x1.6ba7d2p-5f,  0x1.4786ccp-5f,  0x1.1defb4p-5f,  0x1.e72928p-6f, 0x1.970e1p-6f,
       0x1.4efbdep-6f,   0x1.106472p-6f,  0x1.b6d85ep-7f,  0x1.5ee892p-7f,  0x1.16f9d2p-7f, 0x1.b9937ap-8f,
       0x1.5c3d8ep-8f,   0x1.11e034p-8f,  0x1.addadep-9f,  0x1.50c468p-9f,  0x1.077e08p-9f, 0x1.9be66ap-10f,
       0x1.41b106p-10f,  0x1.f62a82p-11f, 0x1.87c15ep-11f, 0x1.318156p-11f, 0x1.dc593p-12f, 0x1.7347ap-12f,
       0x1.2155aep-12f,  0x1.c2e38p-13f},
      // d^3
      {0x1.5555e4p-6f,   0x1.407abcp-6f,   0x1.071c96p-6f,   0x1.6db792p-7f,  0x1.81be36p-8f,   0x1.247dfcp-10f,
       -0x1.567c6ep-9f,  -0x1.4f15a2p-8f,  -0x1.a84dfap-8f,  -0x1.c69534p-8f, -0x1.bb96ecp-8f,  -0x1.97dd28p-8f,
       -0x1.67b516p-8f,  -0x1.33dc26p-8f,  -0x1.01b934p-8f,  -0x1.a861c6p-9f, -0x1.58f7ep-9f,   -0x1.15b35cp-9f,
       -0x1.bbd1d4p-10f, -0x1.6097eap-10f, -0x1.16df2cp-10f, -0x1.b7a32p-11f, -0x1.5996cp-11f,  -0x1.0f1e06p-11f,
       -0x1.a8a974p-12f, -0x1.4c33bcp-12f, -0x1.0396eap-12f, -0x1.956c1p-13f, -0x1.3c676ep-13f, -0x1.eda66ap-14f,
       -0x1.80ee94p-14f, -0x1.2c139cp-14f},
      // d^4
      {-0x1.4c00e2p-19f, -0x1.45a82ap-9f,  -0x1.1d410ep-8f,  -0x1.5788a6p-8f,  -0x1.50b5dap-8f, -0x1.1a2db2p-8f,
       -0x1.98934ap-9f,  -0x1.f29e08p-10f, -0x1.c7b1b8p-11f, -0x1.b87b52p-14f, 0x1.99afecp-12f, 0x1.5cfdc2p-11f,
       0x1.98779ap-11f,  0x1.9cc9c6p-11f,  0x1.812b02p-11f,  0x1.55d00ap-11f,  0x1.2527cp-11f,  0x1.eae424p-12f,
       0x1.93e848p-12f,  0x1.480f08p-12f,  0x1.07daacp-12f,  0x1.a54436p-13f,  0x1.4e6ce2p-13f, 0x1.085862p-13f,
       0x1.a072ap-14f,   0x1.474598p-14f,  0x1.009ed2p-14f,  0x1.91e04cp-15f,  0x1.3a4c6ep-15f, 0x1.eb2a6cp-16f,
       0x1.7f7d2ap-16f,  0x1.2b4496p-16f},
      // d^5
      {-0x1.0f0376p-9f,  -0x1.e4e9c8p-10f, -0x1.23eep-10f,   -0x1.d15ae6p-13f, 0x1.047552p-11f,  0x1.a483fap-11f,
       0x1.0488b4p-10f,  0x1.e2034p-11f,   0x1.64fcf4p-11f,  0x1.10e99p-11f,   0x1.13b7dp-12f,   0x1.54df2ep-13f,
       0x1.9fb724p-15f,  -0x1.eb4e8ep-16f, -0x1.f568dp-15f,  -0x1.0b52fep-14f, -0x1.2812f2p-14f, -0x1.2a917ep-14f,
       -0x1.ec20d2p-15f, -0x1.b19538p-15f, -0x1.77223ep-15f, -0x1.28a6bp-15f,  -0x1.f67a7cp-16f, -0x1.859596p-16f,
       -0x1.482ad4p-16f, -0x1.f0ac42p-17f, -0x1.a03fb8p-17f, -0x1.43252p-17f,  -0x1.f3eaaep-18f, -0x1.78b3a4p-18f,
       -0x1.2c3c6ap-18f, -0x1.d8d28cp-19f},
  };
};

// sigmoid(-v(a)), v(a) = 2 sqrt(2/pi) (a + 0.044715 a^3): Phi(-a) of GELU's tanh approximation: degree 6, w = 0.1875.
struct TanhCdfTable {
  static constexpr int kIntervals = 32;
  static constexpr int kDegree = 6;
  static constexpr float kWidth = 0.1875f;
  static constexpr bool kSplitConstant = true;
  alignas(64) static constexpr float kCoefficients[8][32] = {
      // constant's high part
      {0x1p-1f,         0x1.b3da0ap-2f,  0x1.6a5698p-2f,  0x1.25d222p-2f,  0x1.d0523p-3f,   0x1.65269ap-3f,
       0x1.0b3234p-3f,  0x1.8483aap-4f,  0x1.123c8ep-4f,  0x1.777e7cp-5f,  0x1.f215p-6f,    0x1.3f9764p-6f,
       0x1.8c25e8p-7f,  0x1.d972ecp-8f,  0x1.103a64p-8f,  0x1.2c8fc4p-9f,  0x1.3dd716p-10f, 0x1.411e3p-11f,
       0x1.352504p-12f, 0x1.1ad506p-13f, 0x1.ea7566p-15f, 0x1.91e5aep-16f, 0x1.365eep-17f,  0x1.c28396p-19f,
       0x1.326b18p-20f, 0x1.85865ep-22f, 0x1.cd706cp-24f, 0x1.fbf5p-26f,   0x1.0311fp-27f,  0x1.e85ee8p-30f,
       0x1.a823a6p-32f, 0x1.5273ecp-34f},
      // constant's low part
      {0x1.16p-46f,      -0x1.9281b4p-27f, 0x1.16e2ccp-30f,  0x1.2a1808p-28f,  -0x1.dfeda4p-32f, -0x1.20192p-36f,
       0x1.4fed8p-28f,   -0x1.82f34ap-29f, 0x1.68edf8p-30f,  -0x1.83acbcp-30f, -0x1.2ed2b4p-32f, -0x1.991a18p-34f,
       0x1.077f4cp-32f,  0x1.d03542p-33f,  0x1.3ec0bap-33f,  -0x1.286f22p-34f, -0x1.3e6ad4p-35f, 0x1.23a588p-37f,
       0x1.ab247cp-39f,  -0x1.588624p-39f, -0x1.00f11ep-41f, 0x1.be02e2p-41f,  0x1.ca142ap-43f,  0x1.a065d8p-44f,
       -0x1.72bf0ap-45f, -0x1.fe838cp-48f, -0x1.01777cp-49f, 0x1.97bb8ep-53f,  0x1.018816p-52f,  -0x1.f2cde6p-56f,
       -0x1.bce93ap-58f, 0x1.cbc2p-62f},
      // d^1
      {-0x1.988454p-2f,  -0x1.915d54p-2f,  -0x1.7ca8dp-2f,   -0x1.5c869ep-2f,  -0x1.341904p-2f,  -0x1.070232p-2f,
       -0x1.b1b33ap-3f,  -0x1.596d08p-3f,  -0x1.09c7aep-3f,  -0x1.8b11cep-4f,  -0x1.1b86dcp-4f,  -0x1.88b236p-5f,
       -0x1.06289cp-5f,  -0x1.50f70cp-6f,  -0x1.a03e66p-7f,  -0x1.ed25ep-8f,   -0x1.178bf2p-8f,  -0x1.2e8634p-9f,
       -0x1.37b01ap-10f, -0x1.30e402p-11f, -0x1.1a5e3cp-12f, -0x1.edc794p-14f, -0x1.96715ep-15f, -0x1.3a0e58p-16f,
       -0x1.c64f06p-18f, -0x1.32b7e6p-19f, -0x1.817bbp-21f,  -0x1.c1ab6cp-23f, -0x1.e57e18p-25f, -0x1.e3c92cp-27f,
       -0x1.bbb2cp-29f,  -0x1.757b7cp-31f},
      // d^2
      {0x1.bf33a4p-20f, 0x1.2e71dp-5f,   0x1.1ea4cep-4f,  0x1.89351ep-4f,  0x1.ceb33ep-4f,  0x1.ecbba2p-4f,
       0x1.e66f1cp-4f,  0x1.c31018p-4f,  0x1.8c0a76p-4f,  0x1.4afc54p-4f,  0x1.083536p-4f,  0x1.93bfb4p-5f,
       0x1.279b6p-5f,   0x1.9ed94cp-6f,  0x1.16d008p-6f,  0x1.6680aep-7f,  0x1.b82b76p-8f,  0x1.0175f2p-8f,
       0x1.1e3fd2p-9f,  0x1.2daaf2p-10f, 0x1.2c81c2p-11f, 0x1.1a27ccp-12f, 0x1.f1fda4p-14f, 0x1.9bdda4p-15f,
       0x1.3e56fep-16f, 0x1.ca99c4p-18f, 0x1.32fb26p-19f, 0x1.7cddep-21f,  0x1.b4b3c2p-23f, 0x1.cd79b4p-25f,
       0x1.c0316ap-27f, 0x1.8ef814p-29f},
      // d^3
      {0x1.115dbap-4f,   0x1.03389p-4f,    0x1.b4aa3ep-5f,   0x1.3c2c22p-5f,   0x1.6121dcp-6f,   0x1.376588p-8f,
       -0x1.3d0304p-7f,  -0x1.4d1c14p-6f,  -0x1.b5cc6ep-6f,  -0x1.dd68cp-6f,   -0x1.d0fceap-6f,  -0x1.a11102p-6f,
       -0x1.5df508p-6f,  -0x1.150e38p-6f,  -0x1.9faa66p-7f,  -0x1.280acp-7f,   -0x1.906ddap-8f,  -0x1.00e7a2p-8f,
       -0x1.382ee8p-9f,  -0x1.6671f4p-10f, -0x1.83e97ap-11f, -0x1.8a9bf6p-12f, -0x1.784f98p-13f, -0x1.4f7e0ap-14f,
       -0x1.16dcd6p-15f, -0x1.af091ap-17f, -0x1.34e88ep-18f, -0x1.997aa6p-20f, -0x1.f4a4a4p-22f, -0x1.1988f6p-23f,
       -0x1.228014p-25f, -0x1.1245d6p-27f},
      // d^4
      {0x1.b4f99ep-10f, -0x1.301a82p-7f, -0x1.15817ep-6f, -0x1.643e6cp-6f,  -0x1.7a81bap-6f, -0x1.5bdb92p-6f,
       -0x1.156bap-6f,  -0x1.74d38p-7f,  -0x1.78646ap-8f, -0x1.d3c8f4p-11f, 0x1.60d79p-9f,   0x1.402258p-8f,
       0x1.7f812cp-8f,  0x1.81c11ap-8f,  0x1.5b8c1ep-8f,  0x1.2046b6p-8f,   0x1.bd8706p-9f,  0x1.4273dcp-9f,
       0x1.b613aep-10f, 0x1.1727d4p-10f, 0x1.4d6c94p-11f, 0x1.74726p-12f,   0x1.84471cp-13f, 0x1.78e63cp-14f,
       0x1.53ddacp-15f, 0x1.1bf964p-16f, 0x1.b6b5b8p-18f, 0x1.38827ap-19f,  0x1.99904ap-21f, 0x1.ec8f68p-23f,
       0x1.0f207ap-24f, 0x1.108a9cp-26f},
      // d^5
      {-0x1.aadcbcp-6f,  -0x1.308a6p-7f,   -0x1.ad02dap-8f,  -0x1.b6d524p-9f,  0x1.9a7f0ap-11f,  0x1.a784f2p-9f,
       0x1.5a148p-8f,    0x1.934344p-8f,   0x1.65800ap-8f,   0x1.208c1p-8f,    0x1.a40f28p-9f,   0x1.b1284ep-10f,
       0x1.b0a324p-12f,  -0x1.553516p-12f, -0x1.bcbfc6p-11f, -0x1.13ef5ep-10f, -0x1.1431eap-10f, -0x1.e98bf6p-11f,
       -0x1.86cc7ep-11f, -0x1.2000fp-11f,  -0x1.864dcap-12f, -0x1.eace8ap-13f, -0x1.1d6822p-13f, -0x1.32a50cp-14f,
       -0x1.2feedap-15f, -0x1.1601fap-16f, -0x1.d39f34p-18f, -0x1.6940bp-19f,  -0x1.ffb3d2p-21f, -0x1.4b7fd6p-22f,
       -0x1.880d1ap-24f, -0x1.a64b9p-26f},
      // d^6
      {0x1.ccf546p-5f,   0x1.9952b8p-10f,  0x1.4177fp-9f,    0x1.ba4836p-9f,   0x1.4d12dcp-9f,   0x1.5794c6p-9f,
       0x1.90ea96p-10f,  0x1.7f2a4ap-16f,  -0x1.70a87ap-12f, -0x1.fab772p-11f, -0x1.b2b348p-10f, -0x1.3dba2ap-10f,
       -0x1.8128ecp-11f, -0x1.496e94p-11f, -0x1.0e41cap-12f, -0x1.3042p-14f,   0x1.02958ep-14f,  0x1.4e04fcp-13f,
       0x1.698e1ep-13f,  0x1.6b6d2p-13f,   0x1.24aa06p-13f,  0x1.b593f6p-14f,  0x1.26d91ep-14f,  0x1.67e21p-15f,
       0x1.8ba418p-16f,  0x1.93033p-17f,   0x1.733954p-18f,  0x1.38171ep-19f,  0x1.df6cacp-21f,  0x1.4f28d6p-22f,
       0x1.a9b3b4p-24f,  0x1.ea8daep-26f},
  };
};

// a sigmoid(-v(a)), the negative side of GELU's tanh approximation: degree 6, w = 0.1875.
struct GeluTanhTable {
  static constexpr int kIntervals = 32;
  static constexpr int kDegree = 6;
  static constexpr float kWidth = 0.1875f;
  static constexpr bool kSplitConstant = false;
  alignas(64) static constexpr float kCoefficients[7][32] = {
      // constant
      {0x0p+0f,         0x1.46e386p-4f,  0x1.0fc0f2p-3f,  0x1.4a8c66p-3f,  0x1.5c3da4p-3f,  0x1.4ed43p-3f,
       0x1.2c987cp-3f,  0x1.fdeccep-4f,  0x1.9b5ad6p-4f,  0x1.3cd2b8p-4f,  0x1.d2f3bp-5f,   0x1.49942p-5f,
       0x1.bdaaa6p-6f,  0x1.208208p-6f,  0x1.654ca4p-7f,  0x1.a6aa2ap-8f,  0x1.dcc2ap-9f,   0x1.ffc81cp-10f,
       0x1.04d73cp-10f, 0x1.f7cb72p-12f, 0x1.cbce1p-13f,  0x1.8b9e18p-14f, 0x1.4011d8p-15f, 0x1.e5b5dep-17f,
       0x1.58b87ap-18f, 0x1.c87976p-20f, 0x1.193082p-21f, 0x1.41710ap-23f, 0x1.54078cp-25f, 0x1.4bf08p-27f,
       0x1.2a391p-29f,  0x1.ebd072p-32f},
      // d^1
      {0x1p-1f,          0x1.689888p-2f,   0x1.b72e94p-3f,   0x1.8719a6p-4f,   0x1.16546ep-10f,  -0x1.0ffb06p-4f,
       -0x1.b96ed8p-4f,  -0x1.031d46p-3f,  -0x1.058d3cp-3f,  -0x1.deeeccp-4f,  -0x1.97179ep-4f,  -0x1.4511fp-4f,
       -0x1.ead1e4p-5f,  -0x1.5f7ebap-5f,  -0x1.de434cp-6f,  -0x1.352ca8p-6f,  -0x1.7b9708p-7f,  -0x1.ba021cp-8f,
       -0x1.e7548cp-9f,  -0x1.fbbb82p-10f, -0x1.f2c95cp-11f, -0x1.ccf21ap-12f, -0x1.8fbefap-13f, -0x1.448358p-14f,
       -0x1.ebf232p-16f, -0x1.5b4348p-17f, -0x1.c7633p-19f,  -0x1.149ea2p-20f, -0x1.368228p-22f, -0x1.413138p-24f,
       -0x1.315918p-26f, -0x1.0a11dep-28f},
      // d^2
      {-0x1.988454p-2f, -0x1.8a4544p-2f, -0x1.61c92cp-2f, -0x1.2539p-2f,   -0x1.baaf26p-3f, -0x1.2709a2p-3f,
       -0x1.4034ccp-4f, -0x1.8b4fcap-6f, 0x1.f3e67ep-7f,  0x1.46efcap-5f,  0x1.a7b7cep-5f,  0x1.b8023ep-5f,
       0x1.92f384p-5f,  0x1.511eap-5f,   0x1.05e18ep-5f,  0x1.7cdce2p-6f,  0x1.043daap-6f,  0x1.4eb33ep-7f,
       0x1.951eeap-8f,  0x1.cd1f9p-9f,   0x1.ecdb4p-10f,  0x1.edc582p-11f, 0x1.cebef2p-12f, 0x1.94c96p-13f,
       0x1.49bcf8p-14f, 0x1.f31512p-16f, 0x1.5e0a32p-17f, 0x1.c5ee32p-19f, 0x1.0f6a1p-20f,  0x1.2a8a9ep-22f,
       0x1.2d4552p-24f, 0x1.163494p-26f},
      // d^3
      {0x1.3114a8p-20f, 0x1.8fcf56p-5f,   0x1.70856cp-4f,   0x1.e222a4p-4f,   0x1.08769ap-3f,   0x1.fef726p-4f,
       0x1.b9dbbap-4f,  0x1.55c3p-4f,     0x1.cfb14ap-5f,   0x1.03214cp-5f,   0x1.720d32p-7f,   -0x1.a4f4dep-9f,
       -0x1.88608cp-7f, -0x1.0477f2p-6f,  -0x1.0ac0fep-6f,  -0x1.da24b2p-7f,  -0x1.7c8fccp-7f,  -0x1.18b7fep-7f,
       -0x1.7fad9cp-8f, -0x1.e7a67ep-9f,  -0x1.20895cp-9f,  -0x1.3de83cp-10f, -0x1.45d2c2p-11f, -0x1.3639ecp-12f,
       -0x1.11eebp-13f, -0x1.bfcf5ap-15f, -0x1.521f5cp-16f, -0x1.d6a6aep-18f, -0x1.2d4386p-19f, -0x1.61e1d6p-21f,
       -0x1.7c84cp-23f, -0x1.75a264p-25f},
      // d^4
      {0x1.118c18p-4f,  0x1.edc02ep-5f,  0x1.7ef596p-5f,  0x1.899e02p-6f,  0x1.2113bcp-8f,  -0x1.117e38p-6f,
       -0x1.a4201cp-6f, -0x1.23184p-5f,  -0x1.19a0fcp-5f, -0x1.f59dbcp-6f, -0x1.79e13ep-6f, -0x1.da8f54p-7f,
       -0x1.065672p-7f, -0x1.66914ep-9f, 0x1.401d54p-10f, 0x1.a9ef84p-9f,  0x1.0ba6bcp-8f,  0x1.fea394p-9f,
       0x1.ac980cp-9f,  0x1.3df384p-9f,  0x1.afaccp-10f,  0x1.0bec82p-10f, 0x1.328e86p-11f, 0x1.42628ap-12f,
       0x1.389d64p-13f, 0x1.16f0aep-14f, 0x1.c98772p-16f, 0x1.584e56p-17f, 0x1.daf102p-19f, 0x1.2b8cd6p-20f,
       0x1.58e8eap-22f, 0x1.69b1cp-24f},
      // d^5
      {0x1.c969f2p-12f,  -0x1.b21c68p-7f,  -0x1.3eb54cp-6f,  -0x1.867d4cp-6f,  -0x1.757096p-6f,  -0x1.241d6ep-6f,
       -0x1.72c238p-7f,  -0x1.aee9ep-9f,   0x1.6c6026p-9f,   0x1.bf4b0cp-8f,   0x1.132d4ap-7f,   0x1.f3a33ap-8f,
       0x1.b7e908p-8f,   0x1.4df71cp-8f,   0x1.971c62p-9f,   0x1.940f86p-10f,  0x1.03e9b8p-12f,  -0x1.feae84p-12f,
       -0x1.c0ddcap-11f, -0x1.d175dap-11f, -0x1.8f9ac8p-11f, -0x1.27e662p-11f, -0x1.89b746p-12f, -0x1.d689aap-13f,
       -0x1.001b62p-13f, -0x1.fb3ed2p-15f, -0x1.ca315cp-16f, -0x1.79cc6cp-17f, -0x1.1b951cp-18f, -0x1.83b4bap-20f,
       -0x1.e1e2c4p-22f, -0x1.0fcb42p-23f},
      // d^6
      {-0x1.8a85b2p-7f, 0x1.1bbcecp-4f,  0x1.1f679cp-7f,  0x1.5425d2p-3f,  -0x1.5e185ep-7f,  0x1.ddd236p-4f,
       -0x1.b3c64p-3f,  0x1.9fbc78p-6f,  -0x1.039546p-4f, 0x1.9ae896p-11f, -0x1.33fb96p-6f,  -0x1.fcd10cp-5f,
       -0x1.c4ed1ap-7f, 0x1.49c142p-7f,  -0x1.1ab03p-11f, 0x1.280554p-8f,  -0x1.5d1eccp-11f, 0x1.4ee9a8p-10f,
       -0x1.e0a77p-11f, 0x1.be41dp-14f,  0x1.6763c6p-15f, 0x1.8cd31ap-13f, 0x1.09a298p-13f,  0x1.e7b4dcp-14f,
       0x1.278e2p-14f,  0x1.478906p-15f, 0x1.4a264p-16f,  0x1.32d198p-17f, 0x1.f7c39ap-19f,  0x1.77cc14p-20f,
       0x1.f8613ap-22f, 0x1.31d062p-23f},
  };
};

// Phi(-a) - a phi(a), GELU's derivative at -a (1 minus it at a), for AVX2: degree 7, w = 0.5.
struct GeluDerivativeTableAvx2 {
  static constexpr int kIntervals = 8;
  static constexpr int kDegree = 7;
  static constexpr float kWidth = 0.5f;
  static constexpr bool kSplitConstant = false;
  alignas(64) static constexpr float kCoefficients[8][8] = {
      // constant
      {0x1p-1f, 0x1.0f5eb8p-3f, -0x1.55429ap-4f, -0x1.050e92p-3f, -0x1.5d1c06p-4f, -0x1.341c2ap-5f, -0x1.876f5ap-7f,
       -0x1.71da9p-9f},
      // d^1
      {-0x1.988454p-1f, -0x1.3b7356p-1f, -0x1.ef8e58p-3f, 0x1.094088p-5f, 0x1.ba4b44p-4f, 0x1.3121f6p-4f,
       0x1.fc47a4p-6f, 0x1.251c14p-7f},
      // d^2
      {0x1.c816c8p-20f, 0x1.51fb2ap-2f, 0x1.73aaaap-2f, 0x1.5c2566p-3f, 0x1.5c2bcep-21f, -0x1.93da2ep-5f,
       -0x1.104af8p-5f, -0x1.9cdb46p-7f},
      // d^3
      {0x1.104d0ap-2f, 0x1.15e5f2p-3f, -0x1.4a5f8ap-4f, -0x1.27a5dap-3f, -0x1.26ddb4p-4f, -0x1.0745eep-9f,
       0x1.0a3d84p-6f, 0x1.459496p-7f},
      // d^4
      {0x1.0326fep-11f, -0x1.cbbb1cp-4f, -0x1.4a4e3ap-4f, 0x1.bd9d28p-7f, 0x1.7059e4p-5f, 0x1.5dad4cp-6f,
       0x1.fd8ea4p-21f, -0x1.15ca7ep-8f},
      // d^5
      {-0x1.01092cp-4f, -0x1.2c5686p-6f, 0x1.297038p-5f, 0x1.e0b00ep-6f, -0x1.5d0842p-9f, -0x1.7f42cep-7f,
       -0x1.30d1dep-8f, 0x1.4c264ep-12f},
      // d^6
      {0x1.1670f6p-7f, 0x1.628402p-6f, 0x1.183c36p-7f, -0x1.3d6fap-7f, -0x1.ea83a6p-8f, 0x1.e51cc6p-11f, 0x1.4a85c2p-9f,
       0x1.83507ep-11f},
      // d^7
      {-0x1.67fecp-12f, 0x1.bae99ep-10f, -0x1.d2d804p-8f, -0x1.720ffp-9f, 0x1.36743ep-9f, 0x1.8c3694p-10f,
       -0x1.8c6caep-12f, -0x1.b15614p-12f},
  };
};

// a Phi(-a), GELU's negative side, for AVX2: degree 7, w = 0.5.
struct GeluTableAvx2 {
  static constexpr int kIntervals = 8;
  static constexpr int kDegree = 7;
  static constexpr float kWidth = 0.5f;
  static constexpr bool kSplitConstant = false;
  alignas(64) static constexpr float kCoefficients[8][8] = {
      // constant
      {0x0p+0f, 0x1.3bf144p-3f, 0x1.44ed0cp-3f, 0x1.9a76a4p-4f, 0x1.74bcf8p-5f, 0x1.fcb21ep-7f, 0x1.096698p-8f,
       0x1.aae05p-11f},
      // d^1
      {0x1p-1f, 0x1.0f5eb8p-3f, -0x1.55429ap-4f, -0x1.050e92p-3f, -0x1.5d1c06p-4f, -0x1.341c2ap-5f, -0x1.876f5ap-7f,
       -0x1.71da9p-9f},
      // d^2
      {-0x1.988454p-2f, -0x1.3b737ap-2f, -0x1.ef8efep-4f, 0x1.0941cap-6f, 0x1.ba4b7ep-5f, 0x1.312238p-5f,
       0x1.fc4772p-7f, 0x1.251c0cp-8f},
      // d^3
      {0x1.72e544p-21f, 0x1.c2a3e6p-4f, 0x1.ef8e68p-4f, 0x1.d0315p-5f, 0x1.244ae6p-23f, -0x1.0d3cccp-6f, -0x1.6b0e5p-7f,
       -0x1.133d02p-8f},
      // d^4
      {0x1.10498p-4f, 0x1.1611bep-5f, -0x1.49eb36p-6f, -0x1.27bd94p-5f, -0x1.26f408p-6f, -0x1.0a3e6ap-11f,
       0x1.0a5034p-8f, 0x1.459b66p-9f},
      // d^5
      {0x1.11b47ep-13f, -0x1.6f87d2p-6f, -0x1.086324p-6f, 0x1.6629a6p-9f, 0x1.26d12ap-7f, 0x1.1845dep-8f,
       -0x1.c2b4ap-20f, -0x1.bc3beep-11f},
      // d^6
      {-0x1.5ab8bap-7f, -0x1.a9f118p-9f, 0x1.757276p-8f, 0x1.46429p-8f, -0x1.7f7c24p-12f, -0x1.ebc21p-10f,
       -0x1.9e705ep-11f, 0x1.889d9cp-15f},
      // d^7
      {0x1.6723c2p-10f, 0x1.7e659ep-9f, 0x1.593e2cp-10f, -0x1.8f15f2p-10f, -0x1.249d78p-10f, 0x1.61d818p-15f,
       0x1.8f772ap-12f, 0x1.a6e8e8p-14f},
  };
};

// sigmoid(-v(a)), Phi(-a) of GELU's tanh approximation, for AVX2: degree 7, w = 0.5.
struct TanhCdfTableAvx2 {
  static constexpr int kIntervals = 8;
  static constexpr int kDegree = 7;
  static constexpr float kWidth = 0.5f;
  static constexpr bool kSplitConstant = true;
  alignas(64) static constexpr float kCoefficients[9][8] = {
      // constant's high part
      {0x1p-1f, 0x1.3bfa4cp-2f, 0x1.453d22p-3f, 0x1.123c8ep-4f, 0x1.73ef8ap-6f, 0x1.8b6cccp-8f, 0x1.3dd716p-10f,
       0x1.71379ap-13f},
      // constant's low part
      {0x1.0d4p-43f, -0x1.ddbdbp-27f, 0x1.af8f3ep-30f, 0x1.620f0ep-30f, -0x1.420544p-31f, -0x1.63bccep-35f,
       -0x1.24074p-35f, -0x1.d99e5ep-39f},
      // d^1
      {-0x1.988454p-2f, -0x1.685438p-2f, -0x1.ef2636p-3f, -0x1.09c7aep-3f, -0x1.bda58p-5f, -0x1.20430ep-6f,
       -0x1.178bf2p-8f, -0x1.8546cp-11f},
      // d^2
      {0x1.c60dbap-21f, 0x1.6983f8p-4f, 0x1.ee6106p-4f, 0x1.8c0a7ap-4f, 0x1.bbc06p-5f, 0x1.6d2548p-6f, 0x1.b82b7p-8f,
       0x1.77c7dap-10f},
      // d^3
      {0x1.119b26p-4f, 0x1.67810ap-5f, -0x1.ae710cp-12f, -0x1.b5d5a4p-6f, -0x1.b3ec14p-6f, -0x1.fa6d68p-7f,
       -0x1.906dcep-8f, -0x1.b21354p-10f},
      // d^4
      {0x1.feb19ap-13f, -0x1.5006ccp-6f, -0x1.47d726p-6f, -0x1.78344ep-8f, 0x1.19c798p-8f, 0x1.787b46p-8f,
       0x1.bd8b28p-9f, 0x1.46bf44p-10f},
      // d^5
      {-0x1.7cee04p-7f, -0x1.2a66c2p-8f, 0x1.17d3dap-8f, 0x1.7553f6p-8f, 0x1.12c05cp-9f, -0x1.1df6d2p-11f,
       -0x1.1491c4p-10f, -0x1.416696p-11f},
      // d^6
      {0x1.0d10dp-8f, 0x1.9faea8p-9f, 0x1.008efcp-9f, -0x1.87327p-11f, -0x1.4352e8p-10f, -0x1.fd3d2cp-12f,
       0x1.f1cc24p-15f, 0x1.6c138ap-13f},
      // d^7
      {-0x1.be96c8p-9f, 0x1.60080ep-12f, -0x1.674a02p-11f, -0x1.64f002p-12f, 0x1.53d99ep-13f, 0x1.a0a2a8p-13f,
       0x1.5fc76ep-14f, -0x1.5d859ap-17f},
  };
};

// a sigmoid(-v(a)), the negative side of GELU's tanh approximation, for AVX2: degree 7, w = 0.5.
struct GeluTanhTableAvx2 {
  static constexpr int kIntervals = 8;
  static constexpr int kDegree = 7;
  static constexpr float kWidth = 0.5f;
  static constexpr bool kSplitConstant = false;
  alignas(64) static constexpr float kCoefficients[8][8] = {
      // constant
      {0x0p+0f, 0x1.3bfa4cp-3f, 0x1.453d22p-3f, 0x1.9b5ad6p-4f, 0x1.73ef8ap-5f, 0x1.ee47fep-7f, 0x1.dcc2ap-9f,
       0x1.4310a6p-11f},
      // d^1
      {0x1p-1f, 0x1.0fa06p-3f, -0x1.53d226p-4f, -0x1.058d3cp-3f, -0x1.60a99ep-4f, -0x1.36e638p-5f, -0x1.7b9708p-7f,
       -0x1.3d8a6ep-9f},
      // d^2
      {-0x1.988454p-2f, -0x1.3b2434p-2f, -0x1.efeb02p-4f, 0x1.f3fe7p-7f, 0x1.b9da94p-5f, 0x1.384d52p-5f, 0x1.043d9ep-6f,
       0x1.18260cp-8f},
      // d^3
      {0x1.74b112p-21f, 0x1.c361bp-4f, 0x1.ecb1bep-4f, 0x1.cfb278p-5f, 0x1.f55308p-11f, -0x1.0be42cp-6f,
       -0x1.7c8f0ap-7f, -0x1.1ddf12p-8f},
      // d^4
      {0x1.11a27p-4f, 0x1.1417fep-5f, -0x1.4ec674p-6f, -0x1.2144a4p-5f, -0x1.26d298p-6f, -0x1.2011acp-10f,
       0x1.0bdb6ap-8f, 0x1.62c498p-9f},
      // d^5
      {0x1.160b82p-13f, -0x1.73e154p-6f, -0x1.01786cp-6f, 0x1.724e98p-9f, 0x1.15952cp-7f, 0x1.1fab08p-8f,
       0x1.eb0268p-13f, -0x1.d7462ep-11f},
      // d^6
      {-0x1.62a81cp-7f, -0x1.e2364cp-9f, 0x1.9cefeap-8f, 0x1.1aaap-8f, -0x1.00f25cp-11f, -0x1.b9c078p-10f,
       -0x1.c611fcp-11f, -0x1.99a948p-18f},
      // d^7
      {0x1.730e84p-10f, 0x1.45347p-9f, 0x1.13491cp-10f, -0x1.654b18p-10f, -0x1.691a6ep-11f, -0x1.5db6bap-14f,
       0x1.4745bap-12f, 0x1.1a7498p-13f},
  };
};

// e^(a^2/2) Phi(-a) = erfcx(a / sqrt(2)) / 2, Phi(-a) without its Gaussian factor: degree 6, w = 0.5.
struct GaussianTailTable {
  static constexpr int kIntervals = 32;
  static constexpr int kDegree = 6;
  static constexpr float kWidth = 0.5f;
  static constexpr bool kSplitConstant = true;
  alignas(64) static constexpr float kCoefficients[8][32] = {
      // constant's high part
      {0x1p-1f,        0x1.66027ap-2f, 0x1.0bdb2ep-2f, 0x1.a57056p-3f, 0x1.5845dcp-3f, 0x1.217252p-3f, 0x1.f1b89cp-4f,
       0x1.b396fap-4f, 0x1.82b4bcp-4f, 0x1.5b5acep-4f, 0x1.3b0fbcp-4f, 0x1.201faap-4f, 0x1.095608p-4f, 0x1.eba5fep-5f,
       0x1.c9e12p-5f,  0x1.ac6292p-5f, 0x1.926972p-5f, 0x1.7b5f34p-5f, 0x1.66ccb8p-5f, 0x1.545298p-5f, 0x1.43a38ap-5f,
       0x1.34805ap-5f, 0x1.26b4dp-5f,  0x1.1a1574p-5f, 0x1.0e7dcep-5f, 0x1.03cf06p-5f, 0x1.f3ddc2p-6f, 0x1.e18ddcp-6f,
       0x1.d087aep-6f, 0x1.c0a9c4p-6f, 0x1.b1d706p-6f, 0x1.a3f60ap-6f},
      // constant's low part
      {-0x1.2f9ecp-35f,  0x1.acc044p-27f,  0x1.fc1b9p-33f,   -0x1.a52b5p-29f,  0x1.5a6c7p-28f,   0x1.8b9c92p-30f,
       0x1.19071ep-31f,  -0x1.87086ap-31f, -0x1.cdab58p-30f, -0x1.89d3ccp-29f, 0x1.698f14p-29f,  -0x1.b4c8fep-29f,
       0x1.8f62c4p-29f,  0x1.6c52dep-31f,  0x1.c9112cp-30f,  0x1.7b77fep-30f,  0x1.7a8684p-32f,  -0x1.df6f02p-30f,
       -0x1.18fce2p-31f, -0x1.a1129ap-30f, 0x1.c8ddaep-30f,  -0x1.65c0fp-32f,  -0x1.999abp-32f,  0x1.c1f42cp-31f,
       -0x1.c4d9cap-30f, -0x1.f87bf8p-30f, 0x1.7a2c62p-32f,  -0x1.e0dc2p-32f,  -0x1.23e674p-31f, -0x1.8183b4p-34f,
       0x1.a21c32p-31f,  0x1.537a8ep-31f},
      // d^1
      {-0x1.988452p-2f,  -0x1.cb063p-3f,  -0x1.19524cp-3f, -0x1.71c04ep-4f, -0x1.00f9dap-4f, -0x1.75ab64p-5f,
       -0x1.19cef2p-5f,  -0x1.b6038ap-6f, -0x1.5cf97cp-6f, -0x1.1be2c6p-6f, -0x1.d614ecp-7f, -0x1.8b1956p-7f,
       -0x1.5068c2p-7f,  -0x1.21ae92p-7f, -0x1.f7d59ep-8f, -0x1.b9fa6ap-8f, -0x1.86b844p-8f, -0x1.5bcb3ep-8f,
       -0x1.378124p-8f,  -0x1.188feep-8f, -0x1.fbf2dp-9f,  -0x1.cdeeacp-9f, -0x1.a5dac2p-9f, -0x1.82bdeep-9f,
       -0x1.63cfc8p-9f,  -0x1.486db4p-9f, -0x1.3012a8p-9f, -0x1.1a5102p-9f, -0x1.06cdbep-9f, -0x1.ea79b4p-10f,
       -0x1.cabcdap-10f, -0x1.adf8e8p-10f},
      // d^2
      {0x1.ffff6ep-3f,  0x1.e681dcp-4f,  0x1.fcc822p-5f,  0x1.20403ap-5f,  0x1.5d3008p-6f,  0x1.bf399ep-7f,
       0x1.2c08cap-7f,  0x1.a29f04p-8f,  0x1.2dda04p-8f,  0x1.bfbaeep-9f,  0x1.542a9ap-9f,  0x1.07e3eap-9f,
       0x1.a0eee4p-10f, 0x1.4ea506p-10f, 0x1.106374p-10f, 0x1.c0f9d2p-11f, 0x1.7625d6p-11f, 0x1.3ae804p-11f,
       0x1.0b6e0ap-11f, 0x1.c9eb6p-12f,  0x1.8af23ep-12f, 0x1.56ee3ep-12f, 0x1.2b9aa2p-12f, 0x1.073c62p-12f,
       0x1.d0fb62p-13f, 0x1.9ca85p-13f,  0x1.6fdc4p-13f,  0x1.494a52p-13f, 0x1.27e804p-13f, 0x1.0ade66p-13f,
       0x1.e2fd9p-14f,  0x1.b6748ep-14f},
      // d^3
      {-0x1.104c18p-3f,  -0x1.c1d4aep-5f,  -0x1.9afb22p-6f,  -0x1.997afap-7f,  -0x1.b75eacp-8f,  -0x1.f62644p-9f,
       -0x1.2ed332p-9f,  -0x1.7e83ap-10f,  -0x1.f69d24p-11f, -0x1.55b94ap-11f, -0x1.dea268p-12f, -0x1.57f934p-12f,
       -0x1.f9cfd2p-13f, -0x1.7b65eep-13f, -0x1.21a0dep-13f, -0x1.c166c8p-14f, -0x1.618122p-14f, -0x1.19c96ap-14f,
       -0x1.c61dp-15f,   -0x1.71efa4p-15f, -0x1.305344p-15f, -0x1.f8fe76p-16f, -0x1.a655cap-16f, -0x1.63d3fap-16f,
       -0x1.2ded84p-16f, -0x1.01aa1ep-16f, -0x1.ba9f0ap-17f, -0x1.7df1a8p-17f, -0x1.4bb126p-17f, -0x1.20fde6p-17f,
       -0x1.fa343cp-18f, -0x1.bd87fep-18f},
      // d^4
      {0x1.fe187p-5f,   0x1.760976p-6f,  0x1.2f4646p-7f,  0x1.0d5ca6p-8f,  0x1.030298p-9f,  0x1.0ac136p-10f,
       0x1.239bcp-11f,  0x1.4fb752p-12f, 0x1.9439d6p-13f, 0x1.fa3774p-14f, 0x1.480b9ap-14f, 0x1.b638e6p-15f,
       0x1.2cab24p-15f, 0x1.a6816ep-16f, 0x1.2f1d02p-16f, 0x1.bb61eep-17f, 0x1.49cc4p-17f,  0x1.f256e2p-18f,
       0x1.7d906p-18f,  0x1.281448p-18f, 0x1.d0f91cp-19f, 0x1.70d382p-19f, 0x1.278b7p-19f,  0x1.ddce36p-20f,
       0x1.85a27p-20f,  0x1.3ffcc8p-20f, 0x1.08d11p-20f,  0x1.b8d2a6p-21f, 0x1.7203bap-21f, 0x1.37c892p-21f,
       0x1.0847cap-21f, 0x1.c2a40cp-22f},
      // d^5
      {-0x1.9ff4a8p-6f,  -0x1.20fc04p-7f,  -0x1.a3f044p-9f,  -0x1.4fee12p-10f, -0x1.222146p-11f, -0x1.0f6aa8p-12f,
       -0x1.113886p-13f, -0x1.1bb92p-14f,  -0x1.41b79ep-15f, -0x1.719fa4p-16f, -0x1.befe6cp-17f, -0x1.1b638p-17f,
       -0x1.5a3ed2p-18f, -0x1.bbef7cp-19f, -0x1.48efbcp-19f, -0x1.87fdf6p-20f, -0x1.48ad8ap-20f, -0x1.567354p-21f,
       -0x1.959eb8p-21f, -0x1.345766p-21f, -0x1.6df1b8p-22f, -0x1.0da3ecp-22f, -0x1.bb4356p-23f, -0x1.689b7ep-23f,
       -0x1.48c1fep-24f, -0x1.fea272p-24f, -0x1.cd732cp-25f, -0x1.f49b6ap-24f, -0x1.5b474p-28f,  -0x1.522026p-24f,
       -0x1.12bf9cp-24f, 0x1.59542ap-27f},
      // d^6
      {0x1.d86e98p-8f,  0x1.975f98p-9f,  0x1.0c6e74p-10f, 0x1.87365ep-12f, 0x1.3240ecp-13f,  0x1.06ef76p-14f,
       0x1.e3a73p-16f,  0x1.ce645cp-17f, 0x1.e2fbaep-18f, 0x1.039836p-18f, 0x1.26f59cp-19f,  0x1.5e4c4cp-20f,
       0x1.914d8ep-21f, 0x1.ce1cecp-22f, 0x1.4cb92cp-22f, 0x1.827c44p-23f, 0x1.19c2fap-23f,  0x1.3ccda6p-24f,
       0x1.6d60b6p-24f, 0x1.e858e8p-25f, 0x1.dff03p-26f,  0x1.9cb938p-26f, 0x1.e3ee48p-27f,  0x1.9d8912p-27f,
       0x1.e37df2p-29f, 0x1.faa6aep-28f, 0x1.eeadp-29f,   0x1.6bdcd8p-27f, -0x1.99665ap-30f, 0x1.d3508ep-29f,
       0x1.f62b92p-29f, 0x1.171b7cp-32f},
  };
};

// e^(a^2/2) Phi(-a) = erfcx(a / sqrt(2)) / 2, Phi(-a) without its Gaussian factor, for AVX2: degree 9, w = 2.0.
struct GaussianTailTableAvx2 {
  static constexpr int kIntervals = 8;
  static constexpr int kDegree = 9;
  static constexpr float kWidth = 2.0f;
  static constexpr bool kSplitConstant = true;
  alignas(64) static constexpr float kCoefficients[11][8] = {
      // constant's high part
      {0x1p-1f, 0x1.5845dcp-3f, 0x1.82b4bcp-4f, 0x1.095608p-4f, 0x1.926972p-5f, 0x1.43a38ap-5f, 0x1.0e7dcep-5f,
       0x1.d087aep-6f},
      // constant's low part
      {-0x1.5f7008p-33f, 0x1.ae5d44p-28f, -0x1.c8cbbep-30f, 0x1.8f79fcp-29f, 0x1.7a93cap-32f, 0x1.c8de1p-30f,
       -0x1.c4d9bap-30f, -0x1.23e672p-31f},
      // d^1
      {-0x1.988452p-2f, -0x1.00f9dap-4f, -0x1.5cf97cp-6f, -0x1.5068c2p-7f, -0x1.86b844p-8f, -0x1.fbf2dp-9f,
       -0x1.63cfc8p-9f, -0x1.06cdbep-9f},
      // d^2
      {0x1.ffffb6p-3f, 0x1.5d2fcap-6f, 0x1.2dda02p-8f, 0x1.a0eee4p-10f, 0x1.7625d6p-11f, 0x1.8af23ep-12f,
       0x1.d0fb62p-13f, 0x1.27e804p-13f},
      // d^3
      {-0x1.1054acp-3f, -0x1.b75f32p-8f, -0x1.f6a39p-11f, -0x1.f9cd54p-13f, -0x1.618776p-14f, -0x1.3055p-15f,
       -0x1.2de278p-16f, -0x1.4b996cp-17f},
      // d^4
      {0x1.ffa5cp-5f, 0x1.031064p-9f, 0x1.943e1ap-13f, 0x1.2cab66p-15f, 0x1.49cc12p-17f, 0x1.d0ef7p-19f,
       0x1.8583a6p-20f, 0x1.71d148p-21f},
      // d^5
      {-0x1.b12082p-6f, -0x1.209b28p-11f, -0x1.3b2f64p-15f, -0x1.5e6034p-18f, -0x1.314254p-20f, -0x1.60e8ep-22f,
       -0x1.e9db44p-24f, -0x1.85b7d6p-25f},
      // d^6
      {0x1.492b3p-7f, 0x1.2f4c42p-13f, 0x1.dbabdp-18f, 0x1.9189p-21f, 0x1.149fe2p-23f, 0x1.078cecp-25f, 0x1.388a0ep-27f,
       0x1.b28d4cp-29f},
      // d^7
      {-0x1.a9b08ap-9f, -0x1.34860ap-15f, -0x1.53ed5p-20f, -0x1.dd7cfp-24f, -0x1.0ffc72p-27f, -0x1.06f828p-29f,
       -0x1.e3c91ep-29f, -0x1.bfde1p-29f},
      // d^8
      {0x1.953154p-11f, 0x1.5a99dcp-17f, 0x1.0c0298p-22f, 0x1.029b8ep-26f, 0x1.bc31f6p-30f, 0x1.62e06p-32f,
       0x1.558c8ep-33f, 0x1.ab8b44p-34f},
      // d^9
      {-0x1.945eeep-14f, -0x1.3ce798p-19f, -0x1.f74faap-25f, 0x1.087ed8p-31f, -0x1.94c4b6p-29f, -0x1.d781d4p-32f,
       0x1.3dd76p-30f, 0x1.5c774ep-30f},
  };
};

// sigmoid(-a), for SiLU's derivative, for AVX2: degree 7, w = 1.0.
struct SigmoidTableAvx2 {
  static constexpr int kIntervals = 8;
  static constexpr int kDegree = 7;
  static constexpr float kWidth = 1.0f;
  static constexpr bool kSplitConstant = true;
  alignas(64) static constexpr float kCoefficients[9][8] = {
      // constant's high part
      {0x1p-1f, 0x1.136562p-2f, 0x1.e84152p-4f, 0x1.848344p-5f, 0x1.26afa2p-6f, 0x1.b69f68p-8f, 0x1.441778p-9f,
       0x1.dda738p-11f},
      // constant's low part
      {0x1.6317p-37f, -0x1.61eaep-27f, 0x1.385184p-29f, -0x1.775d5ep-32f, -0x1.439f24p-34f, -0x1.3778fcp-35f,
       -0x1.a402e8p-34f, 0x1.522bccp-36f},
      // d^1
      {-0x1p-2f, -0x1.92a948p-3f, -0x1.ae0dc2p-4f, -0x1.721652p-5f, -0x1.2162c2p-6f, -0x1.b3afe2p-8f, -0x1.434a52p-9f,
       -0x1.dd37d2p-11f},
      // d^2
      {0x1.548b48p-27f, 0x1.742728p-5f, 0x1.4786dep-5f, 0x1.4efbdp-6f, 0x1.16f9ccp-7f, 0x1.addae4p-9f, 0x1.41b10cp-10f,
       0x1.dc593cp-12f},
      // d^3
      {0x1.5553e4p-6f, 0x1.81dc4p-8f, -0x1.a85bb8p-8f, -0x1.67b27cp-8f, -0x1.58f55p-9f, -0x1.16df46p-10f,
       -0x1.a8ac38p-12f, -0x1.3c683ap-13f},
      // d^4
      {0x1.f00842p-19f, -0x1.512f3cp-8f, -0x1.c69672p-11f, 0x1.991b28p-11f, 0x1.25298p-11f, 0x1.07b6a4p-12f,
       0x1.a03752p-14f, 0x1.3a15fap-15f},
      // d^5
      {-0x1.136e7ap-9f, 0x1.bc5bep-12f, 0x1.7b1fdp-11f, 0x1.5ebfd4p-15f, -0x1.39184ap-14f, -0x1.768264p-15f,
       -0x1.3fc9ap-16f, -0x1.ef5a7ap-18f},
      // d^6
      {0x1.6962cep-15f, 0x1.94c954p-12f, -0x1.27d364p-13f, -0x1.d9748cp-15f, 0x1.b991d8p-21f, 0x1.76d84p-18f,
       0x1.88c588p-19f, 0x1.42a872p-20f},
      // d^7
      {0x1.5eb714p-13f, -0x1.b5aef8p-14f, -0x1.44ddaep-17f, 0x1.f285c8p-17f, 0x1.4dc486p-19f, -0x1.43b66ap-22f,
       -0x1.53bc24p-22f, -0x1.4d409ap-23f},
  };
};

} // namespace uaccel::math
