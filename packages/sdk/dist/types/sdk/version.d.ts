export declare const SDK_VERSION = "txray-js/0.3.0";
